package run

import (
	"context"
	"fmt"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
)

// Spawned is the JSON answer of `csa run -i` / `csa spawn`.
type Spawned struct {
	SessionID   string         `json:"session_id"`
	Tool        string         `json:"tool"`
	State       session.Status `json:"state"`
	TmuxSocket  string         `json:"tmux_socket"`
	TmuxSession string         `json:"tmux_session"`
	PanePID     int            `json:"pane_pid"`
	AgentPID    int            `json:"agent_pid"`
	Attach      string         `json:"attach"`
}

// spawn starts a prepared request in a tmux pane and returns at once.
func (j *job) spawn(ctx context.Context, req *runner.Request) error {
	o, cfg, store := j.o, j.cfg, j.store
	if n := len(req.Prompt); n > agents.MaxInteractivePrompt {
		return cmdutil.Usagef("a first prompt of %d bytes is too long for the command line (max %d): start without one and use `csa send ID --text-file FILE --enter`", n, agents.MaxInteractivePrompt)
	}
	srv, err := o.F.Tmux(store)
	if err != nil {
		return err
	}
	exe, err := o.F.Executable()
	if err != nil {
		return err
	}
	pane := runner.Pane{Server: srv, CsaExe: exe, Env: o.F.Environ(), Width: cfg.Interactive.Width, Height: cfg.Interactive.Height,
		Classifier: cmdutil.Classifier(cfg)}
	r, err := runner.PrepareInteractive(ctx, store, *req, pane, o.F.Now())
	if err != nil {
		return err
	}
	st, err := runner.StartPane(ctx, store, r, pane)
	if err != nil {
		return err
	}
	if st.Failure != nil && st.Failure.Class == session.FailRefused {
		// A hook refused the session: its agent never started.
		return cmdutil.Refused("hook_refused", fmt.Errorf("session %s refused: %s", st.ID, st.Failure.Message))
	}
	if st.Status == session.Failed {
		return cmdutil.Refused("start_failed", fmt.Errorf("session %s did not start: %s", st.ID, st.Reason))
	}
	out := Spawned{
		SessionID: st.ID, Tool: st.Tool, State: st.Status, TmuxSocket: st.Interactive.Socket,
		TmuxSession: st.Interactive.TmuxSession, PanePID: st.Interactive.PanePID, AgentPID: st.PID,
		Attach: "csa attach " + st.ID,
	}
	if o.F.JSON {
		return o.F.IO.PrintJSON(out)
	}
	fmt.Fprintln(o.F.IO.Out, st.ID)
	return nil
}
