package run

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/egress"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/verbatim"
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
	// RawBytes: the exact bytes of the fields above that are not UTF-8,
	// as in `csa inspect --json` (internal/verbatim).
	RawBytes map[string]string `json:"raw_bytes,omitempty"`
}

// NewResult summarises a final state.
func NewResult(st *session.State) Result {
	r := Result{
		SessionID: st.ID, Tool: st.Tool, Model: st.Model, Status: st.Status, ExitCode: st.ExitCode,
		Result: st.Result, Usage: st.Usage, ProviderSessionID: st.ProviderSessionID,
		DurationMS: st.Duration(st.EndedAt).Milliseconds(), Failure: st.Failure,
		Tier: st.Tier, FallbackChain: st.FallbackChain,
	}
	r.RawBytes = verbatim.Collect(&r)
	return r
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

// supervise runs a prepared session here and returns its final state.
func (j *job) supervise(ctx context.Context, r *runner.Run) (*session.State, error) {
	ios := j.f.IO
	exe, _ := j.f.Executable()
	sup := &runner.Supervisor{
		Store: j.store, BaseEnv: j.f.Environ(), Now: j.f.Now, Exe: exe, Keeper: j.keeper,
		Stdout: ios.Out, Retries: j.showRetry(r.Spec.Tool, ios.ErrOut),
	}
	j.keeper = nil
	if j.o.Verbose {
		sup.Stderr, sup.Denied = ios.ErrOut, showDenied(ios.ErrOut)
	}
	if j.f.JSON {
		// stdout carries the one JSON answer; the program's output is
		// shown on stderr only to a person watching.
		sup.Stdout, sup.Stderr, sup.Retries = nil, nil, nil
		if ios.ErrTTY {
			sup.Stdout, sup.Retries = ios.ErrOut, j.showRetry(r.Spec.Tool, ios.ErrOut)
			if j.o.Verbose {
				sup.Stderr, sup.Denied = ios.ErrOut, showDenied(ios.ErrOut)
			}
		}
	}
	return sup.Supervise(ctx, r)
}

// showDenied tells a person each connection the sandbox refuses (each is
// a sandbox.denied event).
func showDenied(w io.Writer) func(egress.Decision) {
	return func(d egress.Decision) {
		fmt.Fprintf(w, "csa: sandbox: denied: connect to %s (%s)\n", net.JoinHostPort(d.Host, strconv.Itoa(d.Port)), d.Proto)
	}
}

// showRetry tells a person each retry the agent makes by itself.
func (j *job) showRetry(tool string, w io.Writer) func(agents.Retry) {
	return func(r agents.Retry) {
		fmt.Fprintln(w, "csa: "+tool+": "+describeRetry(r))
	}
}

func describeRetry(r agents.Retry) string {
	what := "a failed request"
	switch {
	case r.RateLimited && r.Status != 0:
		what = fmt.Sprintf("rate limited (HTTP %d)", r.Status)
	case r.RateLimited:
		what = "rate limited"
	case r.Status != 0:
		what = fmt.Sprintf("HTTP %d", r.Status)
	}
	msg := what + ": the agent retries"
	if r.Max > 0 {
		msg += fmt.Sprintf(" (attempt %d of %d)", r.Attempt, r.Max)
	} else if r.Attempt > 0 {
		msg += fmt.Sprintf(" (attempt %d)", r.Attempt)
	}
	if r.DelayMS > 0 {
		msg += fmt.Sprintf(" in %s", (time.Duration(r.DelayMS) * time.Millisecond).Round(100*time.Millisecond))
	}
	return msg
}

// finish prints the result and turns the state into csa's exit status.
func (j *job) finish(st *session.State) error {
	ios := j.f.IO
	if st.Failure != nil && st.Failure.Class == session.FailRefused {
		// A hook refused the run: no program started.
		return cmdutil.Refused("hook_refused", fmt.Errorf("session %s refused: %s", st.ID, st.Failure.Message))
	}
	if j.f.JSON {
		if err := ios.PrintJSON(NewResult(st)); err != nil {
			return err
		}
	} else {
		j.report(ios.ErrOut, st)
	}
	if code := ExitFor(st.Status); code != 0 {
		return &cmdutil.Silent{Exit: code}
	}
	return nil
}

// stderrTailLines is how much of a failed program's standard error is
// shown when it was not shown live.
const stderrTailLines = 10

// report tells a person how the run ended; failures are always told, with
// the end of the program's standard error unless it was shown live.
func (j *job) report(w io.Writer, st *session.State) {
	if st.Status == session.Completed && !j.f.IO.ErrTTY {
		return
	}
	msg := fmt.Sprintf("csa: session %s %s after %s", st.ID, st.Status, st.Duration(st.EndedAt).Round(time.Millisecond))
	if st.Failure != nil {
		msg += ": " + st.Failure.Message
	}
	fmt.Fprintln(w, msg)
	if st.Status == session.Completed || j.o.Verbose {
		return
	}
	if tail := lastLines(j.store.Path(st.ID, session.StderrFile), stderrTailLines); tail != "" {
		fmt.Fprintf(w, "csa: the end of its standard error (%s):\n%s\n", j.store.Path(st.ID, session.StderrFile), tail)
	}
}

// lastLines is the last n lines of a file, indented.
func lastLines(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const max = 8192
	if fi, err := f.Stat(); err == nil && fi.Size() > max {
		f.Seek(fi.Size()-max, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(strings.ToValidUTF8(string(b), "?"), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 1 && strings.TrimSpace(lines[0]) == "" {
		return ""
	}
	return "  " + strings.Join(lines, "\n  ")
}
