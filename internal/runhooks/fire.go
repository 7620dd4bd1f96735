package runhooks

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Result is one command's outcome, as its session records it (the data of
// a hook or prompt_guard event).
type Result struct {
	Event      Event  `json:"event,omitempty"` // "" for a prompt guard
	Command    string `json:"command"`         // as run, variables substituted
	ExitCode   int    `json:"exit_code"`       // -1: killed, timed out or not started
	DurationMS int64  `json:"duration_ms"`
	TimedOut   bool   `json:"timed_out,omitempty"`
	Error      string `json:"error,omitempty"` // it could not start
	// Output is the head of what it wrote (a guard's: what was added).
	Output    string `json:"output"`
	Truncated bool   `json:"output_truncated,omitempty"`
	// AddedBytes: what a guard or pre_session hook added to the prompt.
	AddedBytes int `json:"added_bytes,omitempty"`
	// Timeout is the limit it ran under.
	TimeoutMS int64 `json:"timeout_ms"`
}

// OK tells whether the command exited 0 in time.
func (r Result) OK() bool { return r.Error == "" && !r.TimedOut && r.ExitCode == 0 }

// Failure describes a failed command in a sentence.
func (r Result) Failure() string {
	msg := fmt.Sprintf("%s hook `%s` %s", r.Event, r.Command, r.why())
	if out := strings.TrimSpace(r.Output); out != "" {
		msg += ": " + out
	}
	return msg
}

// why says how a failed command failed, without its output.
func (r Result) why() string {
	switch {
	case r.Error != "":
		return "failed: " + r.Error
	case r.TimedOut:
		return fmt.Sprintf("timed out after %s", time.Duration(r.TimeoutMS)*time.Millisecond)
	}
	return fmt.Sprintf("exited with status %d", r.ExitCode)
}

// Env is where hooks run: the environment they start from (csa's, as the
// run's program gets it) and the working directory (the run's).
type Env struct {
	Base []string
	Dir  string
}

// Fire runs the hooks of ev one after the other, each to its end or its
// timeout, and returns their outcomes. A failure does not stop the ones
// after it: every hook of a point runs, and the caller decides what a
// failure means (Refusal).
func (s *Set) Fire(ctx context.Context, ev Event, v Vars, e Env) []Result {
	if !s.Has(ev) {
		return nil
	}
	limit := outputHead
	if ev == PreSession {
		limit = DefaultGuardBytes
	}
	var out []Result
	for _, h := range s.Hooks[ev] {
		cmd := Expand(h.Command, ev, v)
		o := runCommand(ctx, cmd, v.env(e.Base, ev), e.Dir, h.Timeout, limit)
		out = append(out, result(ev, cmd, h.Timeout, o))
	}
	return out
}

func result(ev Event, cmd string, timeout time.Duration, o outcome) Result {
	return Result{Event: ev, Command: cmd, ExitCode: o.exitCode, DurationMS: o.dur.Milliseconds(),
		TimedOut: o.timedOut, Error: o.err, Output: strings.ToValidUTF8(string(o.output), "\uFFFD"),
		Truncated: o.cut, TimeoutMS: timeout.Milliseconds()}
}

// Refusal is the first failed result, as the reason a run is refused; ""
// when all succeeded.
func Refusal(rs []Result) string {
	for _, r := range rs {
		if !r.OK() {
			return r.Failure()
		}
	}
	return ""
}
