package interactive

import (
	"fmt"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/session"
)

// State is what an interactive session is doing, as `csa status` reports.
type State string

const (
	JustStarted  State = "just_started"  // within the grace period, nothing clearer yet
	InProgress   State = "in_progress"   // the agent is working on an input
	WaitingInput State = "waiting_input" // a turn finished; the agent waits for the next input
	Completed    State = "completed"     // the agent exited with status 0
	Crashed      State = "crashed"       // the agent exited otherwise, died of a signal, or its pane is gone
	Killed       State = "killed"        // csa stopped it (csa kill, rm --force, a signal to its wrapper): recorded killed
	Stuck        State = "stuck"         // alive, but no sign of progress for StuckAfter
	Degraded     State = "degraded"      // csa cannot observe the session reliably
)

// States lists every state, for validating --until.
var States = []State{JustStarted, InProgress, WaitingInput, Completed, Crashed, Killed, Stuck, Degraded}

// ParseState validates a state name.
func ParseState(s string) (State, error) {
	for _, st := range States {
		if string(st) == s {
			return st, nil
		}
	}
	names := make([]string, len(States))
	for i, st := range States {
		names[i] = string(st)
	}
	return "", fmt.Errorf("unknown state %q (states: %s)", s, strings.Join(names, ", "))
}

// Terminal reports whether the session can no longer change.
func (s State) Terminal() bool { return s == Completed || s == Crashed || s == Killed }

// ConfirmGrace is how long after a turn's end an input sent during that
// turn may take to be reported submitted. Claude Code takes 0.2 s on an
// idle machine, and was seen taking over 3 s beside a second test suite
// (the session read waiting_input with the follow-up still queued); an
// input it dropped instead only reads in progress this much longer.
const ConfirmGrace = 10 * time.Second

// HookSilence is how long after an input csa waits for a first event from
// the hooks it installed before it stops trusting them: a program that never
// runs them (an older release, a wrapper that drops csa's arguments) would
// otherwise read in_progress for ever. Working hooks report the submit
// within a second; Claude Code's start on a loaded machine takes several.
const HookSilence = 10 * time.Second

// What decided a verdict (Signals.ClassifiedBy).
const (
	ByProcess  = "process"  // exit record, pane, wrapper, heartbeat, start grace
	ByHooks    = "hooks"    // the agent's own turn events
	ByActivity = "activity" // CPU of the agent's tree and pane output
)

// Settings tune the classifier.
type Settings struct {
	// Grace: a session this young with no clearer signal is just_started.
	Grace time.Duration
	// Quiet: output and CPU silent this long mean a hook-less agent is
	// done with its input.
	Quiet time.Duration
	// StuckAfter: an input unanswered (no output, CPU or turn event) this
	// long is stuck.
	StuckAfter time.Duration
}

// Verdict is a classified session.
type Verdict struct {
	State   State   `json:"state"`
	Reason  string  `json:"reason"`
	Signals Signals `json:"signals"`
}

// Classify decides a session's state, process signals first, then the
// agent's own turn events, then CPU and output quiet time.
func Classify(o Observation, set Settings) Verdict {
	s := signals(o)
	by := ByProcess
	v := func(st State, format string, args ...any) Verdict {
		s.ClassifiedBy = by
		return Verdict{State: st, Reason: fmt.Sprintf(format, args...), Signals: s}
	}
	age := o.Now.Sub(o.StartedAt)

	// 1. The process: how it ended, if it did. A session recorded killed
	// reads killed, as in csa ps, whatever its agent's exit.
	if o.Record == session.Killed {
		return killed(v, o)
	}
	if d := o.Done; d != nil && (o.RunID == "" || d.RunID == o.RunID) {
		return exited(v, d.ExitCode, d.Signal, o.RecordReason)
	}
	if o.Record.Ended() {
		if o.Record == session.Completed {
			return v(Completed, "the agent exited with status 0")
		}
		return v(Crashed, "%s", orText(o.RecordReason, "the session ended with "+string(o.Record)))
	}
	if o.TmuxErr != nil {
		return v(Degraded, "cannot read the tmux server: %v", o.TmuxErr)
	}
	if p := o.Pane; p == nil {
		if o.Record == session.Pending && age < set.Grace {
			return v(JustStarted, "the pane is being created")
		}
		return v(Crashed, "its tmux session is gone and the agent left no exit record")
	} else if p.Dead {
		if p.DeadStatus != nil {
			return exited(v, *p.DeadStatus, "", "")
		}
		return v(Crashed, "its pane is dead and the agent left no exit record")
	}
	if o.DoneErr != nil {
		return v(Degraded, "cannot read the exit record: %v", o.DoneErr)
	}
	if o.Record == session.Pending {
		if age < set.Grace {
			return v(JustStarted, "the pane wrapper is starting the agent")
		}
		return v(Degraded, "the pane wrapper did not start the agent within %s", set.Grace)
	}
	if !o.WrapperAlive {
		return v(Crashed, "the pane wrapper (pid %d) died without an exit record", o.Pane.PID)
	}
	if o.ScanErr != nil {
		return v(Degraded, "cannot read the process table: %v", o.ScanErr)
	}
	if o.AgentPID == 0 {
		return v(Degraded, "no agent process under the pane (pid %d), and no exit record yet", o.Pane.PID)
	}
	if o.HeartbeatErr != nil {
		return v(Degraded, "cannot read the heartbeat: %v", o.HeartbeatErr)
	}
	if o.Heartbeat == nil && age < set.Grace {
		return v(JustStarted, "the agent is starting (no heartbeat yet)")
	}
	if hb := o.Heartbeat; hb == nil || o.Now.Sub(hb.At) > 5*HeartbeatInterval {
		return v(Degraded, "the pane wrapper's heartbeat is stale (%s old): it may be stopped", heartbeatAge(o))
	}
	if o.TurnsErr != nil {
		return v(Degraded, "cannot read the turn record: %v", o.TurnsErr)
	}

	// 2. The agent's own turn events, unless its hooks proved silent.
	t := o.Turns
	hooks, silence := o.Hooks, ""
	if o.hooksSilent() {
		hooks = false
		silence = fmt.Sprintf("no turn events from the agent's hooks for %s after input %d", round(o.Now.Sub(o.inputAt())), t.Submits)
	}
	if hooks {
		by = ByHooks
	}
	pending := t.Submits > 0 && (t.LastTurnAt.IsZero() || t.LastSubmitAt.After(t.LastTurnAt))
	if hooks && !pending && t.Unconfirmed > 0 && !t.LastTurnAt.IsZero() && t.LastTurnAt.After(t.LastSentAt) &&
		o.Now.Sub(t.LastTurnAt) < ConfirmGrace {
		// Sent while a turn ran: the agent queues it and reports its
		// submit just after that turn's end.
		return v(InProgress, "input %d was queued behind turn %d, which just finished", t.Submits, t.Turns)
	}
	if hooks {
		if !pending && t.Turns > 0 {
			return v(WaitingInput, "turn %d finished %s ago (the agent's turn-complete hook)", t.Turns, round(o.Now.Sub(t.LastTurnAt)))
		}
		if !pending && age >= set.Grace {
			return v(WaitingInput, "no input given yet and the agent is up")
		}
	}
	if age < set.Grace {
		by = ByProcess
		return v(JustStarted, "started %s ago (grace %s)", round(age), set.Grace)
	}

	// 3. Activity: CPU of the whole agent tree and pane output.
	quiet := o.Now.Sub(o.lastActive())
	if hooks {
		if quiet >= set.StuckAfter {
			if t.Unconfirmed > 0 && !t.LastSentAt.Before(t.LastSubmitAt) {
				return v(Stuck, "input %d sent %s ago was never taken by the agent (no submit event), and nothing happened for %s", t.Submits, round(o.Now.Sub(t.LastSentAt)), round(quiet))
			}
			return v(Stuck, "input %d sent %s ago: no output, CPU or turn event for %s", t.Submits, round(o.Now.Sub(t.LastSubmitAt)), round(quiet))
		}
		return v(InProgress, "working on input %d (last sign of activity %s ago)", t.Submits, round(quiet))
	}
	by = ByActivity
	why := "no turn events from this agent: judged by CPU and output"
	if silence != "" {
		why = silence + ": judged by CPU and output"
	}
	if quiet < set.Quiet {
		return v(InProgress, "active %s ago (output or CPU of its process tree; %s)", round(quiet), why)
	}
	if o.answered() {
		return v(WaitingInput, "quiet for %s after answering (%s)", round(quiet), why)
	}
	if quiet >= set.StuckAfter {
		return v(Stuck, "no output or CPU for %s since its last input (%s)", round(quiet), why)
	}
	return v(InProgress, "no answer yet to its last input (quiet for %s, stuck after %s; %s)", round(quiet), set.StuckAfter, why)
}

func exited(v func(State, string, ...any) Verdict, code int, sig, reason string) Verdict {
	switch {
	case code < 0 && sig == "":
		return v(Crashed, "the agent did not start%s", suffix(reason))
	case sig != "":
		return v(Crashed, "the agent was killed by %s%s", sig, suffix(reason))
	case code == 0:
		return v(Completed, "the agent exited with status 0")
	}
	return v(Crashed, "the agent exited with status %d%s", code, suffix(reason))
}

// killed explains a session recorded killed: why, and how its agent ended
// if it left an exit record.
func killed(v func(State, string, ...any) Verdict, o Observation) Verdict {
	why := orText(o.RecordReason, "the session was killed")
	d := o.Done
	switch {
	case d == nil || (o.RunID != "" && d.RunID != o.RunID):
		return v(Killed, "%s", why)
	case d.Signal != "":
		return v(Killed, "%s (the agent ended by %s)", why, d.Signal)
	case d.ExitCode >= 0:
		return v(Killed, "%s (the agent exited with status %d)", why, d.ExitCode)
	}
	return v(Killed, "%s", why)
}

func suffix(reason string) string {
	if reason == "" {
		return ""
	}
	return " (" + reason + ")"
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func heartbeatAge(o Observation) string {
	if o.Heartbeat == nil {
		return "none yet"
	}
	return round(o.Now.Sub(o.Heartbeat.At)).String()
}

func round(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}
