package runner

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/lock"
	"github.com/csa-dev/csa/internal/session"
)

// Request is a run as the command line asks for it, already validated.
type Request struct {
	Tool        agents.Tool
	Program     string // resolved program path
	Model       string
	Prompt      string
	Cwd         string // absolute
	ProjectRoot string
	Parent      *Parent
	Timeout     time.Duration
	IdleTimeout time.Duration
	Grace       time.Duration
	MaxLogBytes int64
	Detached    bool
	ToolEnv     []string // KEY=VALUE from the tool's config
}

// Run is a prepared session: created, its supervisor lock held by this
// process, ready to be supervised here or handed to a detached supervisor.
type Run struct {
	Spec  *Spec
	State *session.State
	lock  *lock.Holder
}

// LockFile is the held supervisor lock, for handing to a detached child.
func (r *Run) LockFile() *os.File { return r.lock.File }

// Release drops this process's hold on the supervisor lock.
func (r *Run) Release() { r.lock.Release() }

// Prepare creates the session in state pending, stores the prompt and the
// spec, and takes the supervisor lock before anything can observe the
// session, so it is never mistaken for a crashed one.
func Prepare(store *session.Store, req Request, now time.Time) (*Run, error) {
	inv, err := agents.For(req.Tool).Build(agents.Request{Prompt: req.Prompt, Model: req.Model})
	if err != nil {
		return nil, err
	}
	st := &session.State{
		ID:          session.NewID(now),
		Tool:        string(req.Tool),
		Model:       req.Model,
		Status:      session.Pending,
		ProjectRoot: req.ProjectRoot,
		Cwd:         req.Cwd,
		CreatedAt:   now.UTC(),
		Program:     req.Program,
		Args:        displayArgs(inv.Args, req.Prompt),
		PromptBytes: len(req.Prompt),
		PromptVia:   "argv",
		Detached:    req.Detached,
		TimeoutMS:   req.Timeout.Milliseconds(),
		IdleMS:      req.IdleTimeout.Milliseconds(),
		GraceMS:     req.Grace.Milliseconds(),
	}
	if inv.Stdin != nil {
		st.PromptVia = "stdin"
	}
	if p := req.Parent; p != nil {
		st.ParentID, st.ParentTool, st.Depth = p.SessionID, p.Tool, p.Depth+1
	}
	if err := store.MakeDir(st.ID); err != nil {
		return nil, err
	}
	h, err := lock.Acquire(store.Path(st.ID, session.SupervisorLock))
	if err != nil {
		store.Remove(st.ID)
		return nil, err
	}
	if err := store.Save(st); err != nil {
		h.Release()
		store.Remove(st.ID)
		return nil, err
	}
	sp := &Spec{
		SessionID: st.ID, Tool: st.Tool, Program: req.Program, Args: inv.Args,
		Env: append(append([]string(nil), req.ToolEnv...), inv.Env...), StdinPrompt: inv.Stdin != nil,
		Cwd: req.Cwd, Timeout: req.Timeout, IdleTimeout: req.IdleTimeout, Grace: req.Grace,
		MaxLogBytes: req.MaxLogBytes, Detached: req.Detached,
	}
	err = errors.Join(
		fsutil.WriteFileAtomic(store.Path(st.ID, session.PromptFile), []byte(req.Prompt)),
		saveSpec(store, sp),
	)
	if err != nil {
		h.Release()
		store.Remove(st.ID)
		return nil, fmt.Errorf("prepare session: %w", err)
	}
	return &Run{Spec: sp, State: st, lock: h}, nil
}

// displayArgs replaces a long prompt in argv by a note of its size, so the
// state file stays small and quick to list.
func displayArgs(args []string, prompt string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == prompt && len(a) > 200 {
			a = fmt.Sprintf("<prompt: %d bytes>", len(a))
		}
		out[i] = a
	}
	return out
}

// Adopt builds the Run of a detached supervisor from the spec its parent
// saved and the supervisor lock it inherited.
func Adopt(store *session.Store, id string, h *lock.Holder) (*Run, error) {
	sp, err := LoadSpec(store, id)
	if err != nil {
		return nil, err
	}
	st, err := store.Load(id)
	if err != nil {
		return nil, err
	}
	return &Run{Spec: sp, State: st, lock: h}, nil
}
