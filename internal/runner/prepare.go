package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cost"
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/interrupt"
	"github.com/csa-dev/csa/internal/lock"
	"github.com/csa-dev/csa/internal/resource"
	"github.com/csa-dev/csa/internal/runhooks"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/workspace"
)

// Request is a run as the command line asks for it, already validated.
type Request struct {
	// SessionID names the new session ("" a fresh ULID); a session of
	// that id that exists is a session.ExistsError.
	SessionID   string
	Tool        agents.Tool
	Program     string // resolved program path
	Model       string
	Effort      string
	Yolo        bool
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
	Sandbox     Sandbox
	// Slot is the concurrency slot this run holds, if its tool has a bound.
	Slot *resource.Slot
	// Tier is the tier the run's model was chosen from, if any.
	Tier string
	// ACPProgram, when set, runs the tool's ACP agent (the CLI stays the
	// fallback while the connection is set up).
	ACPProgram string
	ACPArgs    []string // its arguments (csa-agent's --acp)
	// GiveUpAfterRetries: see Spec.
	GiveUpAfterRetries int
	// MaxCostUSD and Prices: see Spec.
	MaxCostUSD float64
	Prices     map[string]cost.Price
	// MCP are the MCP servers given to the program (csa's hub), nil for
	// none; MCPWarning tells why a run that should have had them has not.
	MCP        []agents.MCPServer
	MCPWarning string
	// Getenv reads the environment the program inherits from csa (the
	// tool's configured env over it), for programs whose variables csa
	// adds to; nil for none.
	Getenv func(string) string
	// Hooks are the run's hooks and prompt guards (nil for none);
	// Environ is the environment they start from (csa's own).
	Hooks   *runhooks.Set
	Environ []string
	// Inherited are hook results of this run recorded before its session
	// existed (a tier's on_failover hooks that led to it).
	Inherited []runhooks.Result
	// Worktree runs the agent in a git worktree of its own
	// (internal/workspace); KeepWorktree keeps its folder once the
	// change is recorded.
	Worktree, KeepWorktree bool
	// Branch names the worktree's branch; WorktreeSubmodules checks out
	// the repository's submodules in it.
	Branch             workspace.Naming
	WorktreeSubmodules bool
	// Snapshot is the caller's tree the worktree starts from: nil, it is
	// taken when the worktree is made and left here, so that every
	// attempt of a tier given the same pointer starts from the same tree.
	Snapshot **gittree.Snapshot
	// resume is the provider session a resumed turn continues.
	resume string
}

// Run is a prepared session: created (or reopened for its next turn), its
// supervisor lock held by this process, ready to be supervised here or
// handed to a detached supervisor.
type Run struct {
	Spec  *Spec
	State *session.State
	lock  *lock.Holder
	slot  *resource.Slot
	// unsaved: a foreground run's state is first written when its program
	// starts; until then the held supervisor lock marks the directory as
	// a session being started.
	unsaved bool
}

// LockFile is the held supervisor lock, for handing to a detached child.
func (r *Run) LockFile() *os.File { return r.lock.File }

// SlotFile is the held concurrency slot, if any, for a detached child.
func (r *Run) SlotFile() *os.File {
	if r.slot == nil {
		return nil
	}
	return r.slot.File
}

// Release drops this process's hold on the supervisor lock and the slot.
func (r *Run) Release() {
	r.lock.Release()
	if r.slot != nil {
		r.slot.Release()
	}
}

// Prepare creates the session in state pending, stores the prompt and the
// spec, and takes the supervisor lock before the state is first written,
// so the session is never mistaken for a crashed one. The pre_session
// hooks and the prompt guards run here, once the session has its id: their
// output becomes part of the prompt.
func Prepare(ctx context.Context, store *session.Store, req Request, now time.Time) (*Run, error) {
	fresh := session.NewUUID()
	inv, err := build(req, "", fresh)
	if err != nil {
		return nil, err
	}
	st, h, err := NewSession(store, req.SessionID, string(req.Tool), req.Parent, req.ProjectRoot, now)
	if err != nil {
		return nil, err
	}
	st.Tier = req.Tier
	if err := makeWorkspace(ctx, store, st, &req); err != nil {
		h.Release()
		store.Remove(st.ID)
		return nil, err
	}
	var prelude []runhooks.Result
	if req.Hooks != nil {
		interrupt.Ready(ctx) // an interrupt stops the hooks, not csa alone
		st.Model, st.Cwd = req.Model, req.Cwd
		req.Prompt, prelude = req.Hooks.Prelude(ctx, req.Prompt, true, HookVars(store, st), req.hookEnv(store, st))
		if inv, err = build(req, "", fresh); err != nil {
			h.Release()
			dropWorkspace(req, st)
			store.Remove(st.ID)
			return nil, err
		}
	}
	describe(st, req, inv)
	r, err := finishPrepare(store, st, req, inv, h, req.Detached, prelude)
	if err != nil {
		dropWorkspace(req, st)
		store.Remove(st.ID)
	}
	return r, err
}

// PrepareResume reopens an ended session for its next turn: the same tool
// continues the same provider session with a new prompt (with the prompt
// guards' output; pre_session hooks fired when it was created).
func PrepareResume(ctx context.Context, store *session.Store, id string, req Request) (*Run, error) {
	h, err := lock.Acquire(store.Path(id, session.SupervisorLock))
	if err != nil {
		// A supervisor holds its lock until it exits, a moment after it
		// records the end: `csa wait ID && csa run --session ID` must not
		// find the session busy.
		if st, lerr := store.Load(id); lerr == nil && st.Status.Ended() {
			h, err = lock.AcquireWait(store.Path(id, session.SupervisorLock), exitingSupervisor)
		}
		if err != nil {
			return nil, &BusyError{ID: id}
		}
	}
	st, err := store.Load(id)
	if err != nil {
		h.Release()
		return nil, err
	}
	if st.ProviderSessionID == "" {
		h.Release()
		return nil, fmt.Errorf("session %s cannot be resumed: %s recorded no provider session id", id, st.Tool)
	}
	var prelude []runhooks.Result
	if req.Hooks != nil {
		interrupt.Ready(ctx)
		st.Model, st.Cwd = req.Model, req.Cwd
		req.Prompt, prelude = req.Hooks.Prelude(ctx, req.Prompt, false, HookVars(store, st), req.hookEnv(store, st))
	}
	inv, err := build(req, st.ProviderSessionID, "")
	if err != nil {
		h.Release()
		return nil, err
	}
	if err := st.Move(session.Pending); err != nil {
		h.Release()
		return nil, err
	}
	describe(st, req, inv)
	os.Remove(store.Path(id, session.KillRequest)) // a past kill is not this turn's
	req.resume = st.ProviderSessionID
	return finishPrepare(store, st, req, inv, h, true, prelude)
}

// exitingSupervisor bounds the wait for a supervisor that recorded its
// run's end to exit.
const exitingSupervisor = 5 * time.Second

// BusyError reports a session whose supervisor is still running it.
type BusyError struct{ ID string }

func (e *BusyError) Error() string { return fmt.Sprintf("session %s is running", e.ID) }

// build is the program's invocation for req. A value that argv or the
// environment cannot carry (a NUL byte) is refused before anything runs.
func build(req Request, resume, fresh string) (agents.Invocation, error) {
	ar := agentRequest(req, resume, fresh)
	inv, err := agents.For(req.Tool).Build(ar)
	if err != nil {
		return inv, err
	}
	return inv, agents.CheckNUL(inv.Args, append(append([]string(nil), req.ToolEnv...), inv.Env...), ar)
}

func agentRequest(req Request, resume, fresh string) agents.Request {
	return agents.Request{
		Prompt: req.Prompt, Model: req.Model, Effort: req.Effort, Yolo: req.Yolo,
		ResumeID: resume, NewSessionID: fresh, Root: os.Geteuid() == 0,
		MCP: req.mcpFor(), Getenv: req.programEnv,
	}
}

// mcpFor is the MCP servers the run's program takes: none for a tool
// without an MCP client.
func (req Request) mcpFor() []agents.MCPServer {
	if s, ok := agents.Lookup(string(req.Tool)); !ok || !s.MCPClient {
		return nil
	}
	return req.MCP
}

// programEnv reads a variable the program will see: the tool's configured
// env wins over csa's own environment.
func (req Request) programEnv(key string) string {
	for i := len(req.ToolEnv) - 1; i >= 0; i-- {
		if k, v, _ := strings.Cut(req.ToolEnv[i], "="); k == key {
			return v
		}
	}
	if req.Getenv == nil {
		return ""
	}
	return req.Getenv(key)
}

// describe records how this turn runs.
func describe(st *session.State, req Request, inv agents.Invocation) {
	st.Model = req.Model
	st.Cwd = req.Cwd
	st.Program = req.Program
	st.Args = displayArgs(inv.Args, req.Prompt)
	st.PromptBytes = len(req.Prompt)
	st.PromptVia = "argv"
	if inv.Stdin != nil {
		st.PromptVia = "stdin"
	}
	st.Detached = req.Detached
	st.MCP = agents.MCPNames(req.mcpFor())
	st.TimeoutMS, st.IdleMS, st.GraceMS = req.Timeout.Milliseconds(), req.IdleTimeout.Milliseconds(), req.Grace.Milliseconds()
	if inv.ProviderSessionID != "" {
		st.ProviderSessionID = inv.ProviderSessionID
	}
}

func finishPrepare(store *session.Store, st *session.State, req Request, inv agents.Invocation, h *lock.Holder, save bool, prelude []runhooks.Result) (*Run, error) {
	sp := &Spec{
		SessionID: st.ID, Tool: st.Tool, Program: req.Program, Args: inv.Args,
		Env: append(append([]string(nil), req.ToolEnv...), inv.Env...), StdinPrompt: inv.Stdin != nil,
		Cwd: req.Cwd, Timeout: req.Timeout, IdleTimeout: req.IdleTimeout, Grace: req.Grace,
		MaxLogBytes: req.MaxLogBytes, Detached: req.Detached, Sandbox: req.Sandbox,
		ACP: acpSpec(req, req.resume), GiveUpAfterRetries: req.GiveUpAfterRetries,
		MaxCostUSD: req.MaxCostUSD, Prices: req.Prices,
		Hooks: req.Hooks, Prelude: append(append([]runhooks.Result(nil), req.Inherited...), prelude...),
	}
	if req.MCPWarning != "" {
		sp.Warnings = append(sp.Warnings, req.MCPWarning)
	}
	// The run's working directory (its worktree, when it has one) is
	// known only now; a worktree's commits go to its repository's .git,
	// as a run in the repository itself may write it.
	sp.Sandbox.FS = req.Sandbox.FS.WithWrite(req.Cwd)
	if ws := st.Workspace; ws != nil {
		if dot := filepath.Join(ws.Repo, ".git"); isDir(dot) {
			sp.Sandbox.FS = sp.Sandbox.FS.WithWrite(dot)
		}
	}
	if fs := sp.Sandbox.FS; fs != nil && fs.Warning != "" {
		sp.Warnings = append(sp.Warnings, "sandbox: "+fs.Warning)
	}
	if req.Slot != nil {
		sp.SlotTool, sp.SlotIndex = req.Slot.Tool, req.Slot.Index
	}
	// A short prompt is recorded whole in the state's args; a longer one
	// (or one sent on stdin) in prompt.txt, without fsync like the spec,
	// which only a detached supervisor needs. The state is the record
	// that must survive a crash.
	var errs []error
	if inv.Stdin != nil || len(req.Prompt) > displayPrompt {
		errs = append(errs, fsutil.WriteFileReplace(store.Path(st.ID, session.PromptFile), []byte(req.Prompt)))
	} else {
		os.Remove(store.Path(st.ID, session.PromptFile)) // a resumed session's earlier prompt
	}
	if save {
		errs = append(errs, store.Save(st))
	}
	if req.Detached {
		errs = append(errs, saveSpec(store, sp))
	}
	if err := errors.Join(errs...); err != nil {
		h.Release()
		return nil, fmt.Errorf("prepare session: %w", err)
	}
	return &Run{Spec: sp, State: st, lock: h, slot: req.Slot, unsaved: !save}, nil
}

// displayPrompt is the longest prompt kept whole in the state's args.
const displayPrompt = 200

// displayArgs replaces a long prompt in argv by a note of its size, so the
// state file stays small and quick to list.
func displayArgs(args []string, prompt string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == prompt && len(a) > displayPrompt {
			a = fmt.Sprintf("<prompt: %d bytes>", len(a))
		}
		out[i] = a
	}
	return out
}

// Adopt builds the Run of a detached supervisor from the spec its parent
// saved and the supervisor lock (and slot) it inherited.
func Adopt(store *session.Store, id string, h *lock.Holder) (*Run, error) {
	sp, err := LoadSpec(store, id)
	if err != nil {
		return nil, err
	}
	st, err := store.Load(id)
	if err != nil {
		return nil, err
	}
	r := &Run{Spec: sp, State: st, lock: h}
	if sp.SlotTool != "" {
		if r.slot, err = resource.AdoptSlot(SlotFD, sp.SlotTool, sp.SlotIndex); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// NewSession is the one place a session is born: a new pending state of
// tool with the caller's genealogy, its directory, and its supervisor lock,
// taken before any state is written (so the session is never mistaken for
// a crashed one) and held by the caller until it hands it on. Nothing is
// saved yet. id names it ("" a fresh ULID; see session.Store.Create).
func NewSession(store *session.Store, id, tool string, parent *Parent, root string, now time.Time) (*session.State, *lock.Holder, error) {
	if id == "" {
		id = session.NewID(now)
	}
	st := &session.State{
		ID: id, Tool: tool, Status: session.Pending, ProjectRoot: root, CreatedAt: now.UTC(),
	}
	if p := parent; p != nil {
		st.ParentID, st.ParentTool, st.Depth = p.SessionID, p.Tool, p.Depth+1
		st.ParentUnknown = p.SessionID == ""
	}
	h, err := store.Create(st.ID)
	if err != nil {
		return nil, nil, err
	}
	return st, h, nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
