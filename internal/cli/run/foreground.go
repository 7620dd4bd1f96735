package run

import (
	"fmt"
	"io"
	"time"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
)

// Result is the stable JSON answer of `csa run --json`.
type Result struct {
	SessionID         string            `json:"session_id"`
	Tool              string            `json:"tool"`
	Model             string            `json:"model"`
	Status            session.Status    `json:"status"`
	ExitCode          *int              `json:"exit_code"`
	Result            string            `json:"result"`
	Usage             *session.Usage    `json:"usage"`
	ProviderSessionID string            `json:"provider_session_id"`
	DurationMS        int64             `json:"duration_ms"`
	Failure           *session.Failure  `json:"failure"`
	Tier              string            `json:"tier,omitempty"`
	FallbackChain     []session.Attempt `json:"fallback_chain,omitempty"`
}

// NewResult summarises a final state.
func NewResult(st *session.State) Result {
	return Result{
		SessionID: st.ID, Tool: st.Tool, Model: st.Model, Status: st.Status, ExitCode: st.ExitCode,
		Result: st.Result, Usage: st.Usage, ProviderSessionID: st.ProviderSessionID,
		DurationMS: st.Duration(st.EndedAt).Milliseconds(), Failure: st.Failure,
		Tier: st.Tier, FallbackChain: st.FallbackChain,
	}
}

// ExitFor maps a session's final state to csa's exit status.
func ExitFor(s session.Status) int {
	switch s {
	case session.Completed:
		return cmdutil.ExitOK
	case session.TimedOut:
		return cmdutil.ExitTimeout
	case session.Killed:
		return cmdutil.ExitInterrupted
	}
	return cmdutil.ExitFailed
}

func (o *Options) foreground(store *session.Store, r *runner.Run) error {
	st, err := o.supervise(store, r)
	if err != nil {
		return err
	}
	return o.finish(st)
}

// supervise runs a prepared session here and returns its final state.
func (o *Options) supervise(store *session.Store, r *runner.Run) (*session.State, error) {
	ios := o.F.IO
	if o.signals == nil {
		o.signals = o.F.Signals()
	}
	sup := &runner.Supervisor{
		Store: store, Signals: o.signals, BaseEnv: o.F.Environ(), Now: o.F.Now,
		Stdout: ios.Out, Stderr: ios.ErrOut,
	}
	if o.F.JSON {
		// stdout carries the one JSON answer; the program's output is
		// shown on stderr only to a person watching.
		sup.Stdout = nil
		if !ios.ErrTTY {
			sup.Stderr = nil
		} else {
			sup.Stdout = ios.ErrOut
		}
	}
	return sup.Supervise(r)
}

// finish prints the result and turns the state into csa's exit status.
func (o *Options) finish(st *session.State) error {
	ios := o.F.IO
	if o.F.JSON {
		if err := ios.PrintJSON(NewResult(st)); err != nil {
			return err
		}
	} else {
		o.report(ios.ErrOut, st)
	}
	if code := ExitFor(st.Status); code != 0 {
		return &cmdutil.Silent{Exit: code}
	}
	return nil
}

// report tells a person how the run ended; failures are always told.
func (o *Options) report(w io.Writer, st *session.State) {
	if st.Status == session.Completed && !o.F.IO.ErrTTY {
		return
	}
	msg := fmt.Sprintf("csa: session %s %s after %s", st.ID, st.Status, st.Duration(st.EndedAt).Round(time.Millisecond))
	if st.Failure != nil {
		msg += ": " + st.Failure.Message
	}
	fmt.Fprintln(w, msg)
}
