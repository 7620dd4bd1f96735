package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/events"
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/interactive"
	"github.com/csa-dev/csa/internal/interrupt"
	"github.com/csa-dev/csa/internal/runhooks"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/shellquote"
	"github.com/csa-dev/csa/internal/tmux"
)

// Pane is where an interactive session runs.
type Pane struct {
	Server tmux.Server
	CsaExe string   // csa itself: the pane wrapper and the hooks
	Env    []string // the environment the agent starts from
	Width  int
	Height int
	// Classifier tunes how the pane wrapper tells that the agent started
	// needing input (the on_needs_input hooks), as csa status would.
	Classifier interactive.Settings
}

// PrepareInteractive creates an interactive session in state pending: its
// spec, the agent's environment, hook settings and first turn record. The
// supervisor lock is held until StartPane hands it to the pane wrapper.
// The pre_session hooks and the prompt guards run here, as for a headless
// run; their output joins the first prompt when one is given (without one
// there is no prompt to add to: the hooks still run, and may refuse).
func PrepareInteractive(ctx context.Context, store *session.Store, req Request, pane Pane, now time.Time) (*Run, error) {
	st, h, err := NewSession(store, req.SessionID, string(req.Tool), req.Parent, req.ProjectRoot, now)
	if err != nil {
		return nil, err
	}
	if err := makeWorkspace(ctx, store, st, &req); err != nil {
		h.Release()
		store.Remove(st.ID)
		return nil, err
	}
	dir := store.Dir(st.ID)
	var prelude []runhooks.Result
	if req.Hooks != nil {
		interrupt.Ready(ctx) // an interrupt stops the hooks, not csa alone
		st.Model, st.Cwd = req.Model, req.Cwd
		if req.Prompt != "" {
			req.Prompt, prelude = req.Hooks.Prelude(ctx, req.Prompt, true, HookVars(store, st), req.hookEnv(store, st))
		} else {
			prelude = req.Hooks.Fire(ctx, runhooks.PreSession, HookVars(store, st), req.hookEnv(store, st))
		}
	}
	inv, err := agents.BuildInteractive(req.Tool, agents.InteractiveRequest{
		Prompt: req.Prompt, Model: req.Model, Effort: req.Effort, Yolo: req.Yolo, Root: os.Geteuid() == 0,
		NewSessionID: session.NewUUID(), Dir: dir, MCP: req.mcpFor(), Getenv: req.programEnv,
		Hook: shellquote.Quote(pane.CsaExe) + " __hook --dir " + shellquote.Quote(dir),
	})
	if err == nil {
		// A pane's program takes its first prompt in argv, and nothing
		// types a NUL into a terminal.
		err = agents.CheckNUL(inv.Args, append(append([]string(nil), req.ToolEnv...), inv.Env...),
			agents.Request{Prompt: req.Prompt, Model: req.Model, Effort: req.Effort})
	}
	if err != nil {
		h.Release()
		dropWorkspace(req, st)
		store.Remove(st.ID)
		return nil, err
	}
	st.Interactive = &session.Interactive{
		Socket: pane.Server.Socket, TmuxSession: tmux.SessionName(st.ID), RunID: session.NewUUID(), Hooks: inv.Hooks,
	}
	describe(st, req, agents.Invocation{Args: inv.Args, ProviderSessionID: inv.ProviderSessionID})
	st.PromptVia = "argv"
	sp := &Spec{
		SessionID: st.ID, Tool: st.Tool, Program: req.Program, Args: inv.Args,
		Env: append(append([]string(nil), req.ToolEnv...), inv.Env...), Cwd: req.Cwd,
		Grace: req.Grace, Sandbox: req.Sandbox, SubmitDelay: time.Duration(inv.SubmitDelayMS) * time.Millisecond,
		ReadyDelay: time.Duration(inv.ReadyMS) * time.Millisecond, ReadyHook: inv.ReadyHook,
		Hooks: req.Hooks, Prelude: append(append([]runhooks.Result(nil), req.Inherited...), prelude...),
	}
	if req.Hooks.Has(runhooks.OnNeedsInput) {
		sp.Classifier = &pane.Classifier
	}
	// The pane log is created here, private: tmux's `cat >>` would create
	// it with the server's umask.
	errs := []error{saveSpec(store, sp), fsutil.WriteFileReplace(store.Path(st.ID, interactive.EnvFile), encodeEnv(pane.Env)),
		fsutil.WriteFileReplace(store.Path(st.ID, interactive.PaneLog), nil)}
	for path, data := range inv.Files {
		errs = append(errs, fsutil.WriteFileReplace(path, data))
	}
	if req.Prompt != "" {
		_, err := interactive.UpdateTurns(dir, func(t *interactive.Turns) {
			t.Submits, t.LastSubmitAt = 1, now.UTC()
			if inv.Hooks {
				t.Unconfirmed = 1
			}
		})
		errs = append(errs, err)
	}
	if req.MCPWarning != "" {
		errs = append(errs, interactive.Append(dir, events.Warning, map[string]any{"message": req.MCPWarning}))
	}
	errs = append(errs, store.Save(st), interactive.AddToIndex(store.Root(), st.ID))
	if err := errors.Join(errs...); err != nil {
		h.Release()
		dropWorkspace(req, st)
		store.Remove(st.ID)
		return nil, fmt.Errorf("prepare interactive session: %w", err)
	}
	return &Run{Spec: sp, State: st, lock: h, slot: req.Slot}, nil
}

// StartPane starts the prepared session's pane (the pane wrapper, csa
// __pane, recording every byte the pane shows), hands it the supervisor
// lock, and returns once the wrapper has started the agent.
func StartPane(ctx context.Context, store *session.Store, run *Run, pane Pane) (*session.State, error) {
	id := run.Spec.SessionID
	ix := run.State.Interactive
	pid, err := pane.Server.NewSession(ctx, tmux.New{
		Name: ix.TmuxSession, Dir: run.Spec.Cwd, Width: pane.Width, Height: pane.Height,
		Argv:   []string{pane.CsaExe, "__pane", "--sessions", store.Root(), id},
		PipeTo: store.Path(id, interactive.PaneLog),
	})
	if err != nil {
		run.Release()
		return failStart(ctx, store, id, fmt.Sprintf("cannot start its tmux session: %v", err))
	}
	interactive.Append(store.Dir(id), interactive.EvSpawned, map[string]any{
		"tmux_socket": ix.Socket, "tmux_session": ix.TmuxSession, "pane_pid": pid,
	})
	// The slot, if any, stays with this process's exit; the wrapper takes
	// over liveness through the supervisor lock.
	run.Release()
	// The wrapper fires the pre_run hooks before it starts the agent.
	bound := 10*time.Second + run.Spec.Hooks.Bound(runhooks.PreRun)
	deadline := time.Now().Add(bound)
	for {
		st, err := store.Load(id)
		if err == nil && st.Status != session.Pending {
			return st, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			why := fmt.Sprintf("its pane wrapper did not start the agent within %s", bound)
			if ctx.Err() != nil {
				why = "csa run -i was " + context.Cause(ctx).Error() + " while its pane started"
			}
			pane.Server.KillSession(context.WithoutCancel(ctx), ix.TmuxSession)
			return failStart(ctx, store, id, why)
		}
		if !store.SupervisorAlive(id) && time.Since(run.State.CreatedAt) > time.Second {
			if panes, perr := pane.Server.Panes(ctx); perr == nil {
				if _, ok := panes[ix.TmuxSession]; !ok {
					return failStart(ctx, store, id, "its pane exited before the agent started (see "+store.Path(id, interactive.PaneLog)+")")
				}
			}
		}
		interrupt.Pause(ctx, 3*time.Millisecond)
	}
}

func failStart(ctx context.Context, store *session.Store, id, msg string) (*session.State, error) {
	return store.Update(context.WithoutCancel(ctx), id, func(cur *session.State) error {
		if cur.Status != session.Pending {
			return session.ErrNoChange
		}
		cur.EndedAt = time.Now().UTC()
		cur.Reason = msg
		cur.Failure = &session.Failure{Class: session.FailStart, Message: msg}
		return cur.Move(session.Failed)
	})
}

// encodeEnv writes KEY=VALUE entries separated by NUL bytes.
func encodeEnv(env []string) []byte {
	var b bytes.Buffer
	for _, kv := range env {
		b.WriteString(kv)
		b.WriteByte(0)
	}
	return b.Bytes()
}

func decodeEnv(b []byte) []string {
	var env []string
	for _, kv := range bytes.Split(b, []byte{0}) {
		if len(kv) > 0 {
			env = append(env, string(kv))
		}
	}
	return env
}
