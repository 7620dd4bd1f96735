package interactive

import (
	"fmt"
	"time"
)

// State is what an interactive session is doing, as `csa status` reports.
type State string

const (
	JustStarted  State = "just_started"  // within the grace period, nothing clearer yet
	InProgress   State = "in_progress"   // the agent is working on an input
	WaitingInput State = "waiting_input" // a turn finished; the agent waits for the next input
	Completed    State = "completed"     // the agent exited with status 0
	Crashed      State = "crashed"       // the agent exited otherwise, was killed, or its pane is gone
	Stuck        State = "stuck"         // alive, but no sign of progress for StuckAfter
	Degraded     State = "degraded"      // csa cannot observe the session reliably
)

// States lists every state, for validating --until.
var States = []State{JustStarted, InProgress, WaitingInput, Completed, Crashed, Stuck, Degraded}

// ParseState validates a state name.
func ParseState(s string) (State, error) {
	for _, st := range States {
		if string(st) == s {
			return st, nil
		}
	}
	return "", fmt.Errorf("unknown state %q (states: just_started, in_progress, waiting_input, completed, crashed, stuck, degraded)", s)
}

// Terminal reports whether the session can no longer change.
func (s State) Terminal() bool { return s == Completed || s == Crashed }

// ConfirmGrace is how long after a turn's end an input sent during that
// turn may take to be reported submitted (Claude Code: 0.2 s measured).
const ConfirmGrace = 3 * time.Second

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

// DefaultSettings are used when the configuration sets none.
var DefaultSettings = Settings{Grace: 5 * time.Second, Quiet: 3 * time.Second, StuckAfter: 5 * time.Minute}

// Signals is everything the classifier looks at; `csa status --json`
// shows it as is.
type Signals struct {
	Now       time.Time `json:"now"`
	StartedAt time.Time `json:"started_at"`
	AgeMS     int64     `json:"age_ms"`
	// Record is the session's recorded state (pending, running, or how it
	// ended) and its reason.
	Record       string `json:"record"`
	RecordReason string `json:"record_reason,omitempty"`
	WrapperAlive bool   `json:"wrapper_alive"`

	PaneFound  bool   `json:"pane_found"`
	PaneDead   bool   `json:"pane_dead,omitempty"`
	PaneStatus *int   `json:"pane_dead_status,omitempty"`
	PanePID    int    `json:"pane_pid,omitempty"`
	PaneCmd    string `json:"pane_command,omitempty"`
	TmuxError  string `json:"tmux_error,omitempty"`

	Done      *Done  `json:"done,omitempty"`
	DoneError string `json:"done_error,omitempty"`

	AgentPID   int    `json:"agent_pid,omitempty"`
	AgentProcs int    `json:"agent_procs,omitempty"`
	TreeCPU    int64  `json:"tree_cpu_ticks"`
	ScanError  string `json:"scan_error,omitempty"`

	HeartbeatAgeMS int64  `json:"heartbeat_age_ms,omitempty"`
	HeartbeatError string `json:"heartbeat_error,omitempty"`
	CPUQuietMS     int64  `json:"cpu_quiet_ms,omitempty"`

	OutputBytes   int64 `json:"output_bytes"`
	OutputQuietMS int64 `json:"output_quiet_ms"`

	// Hooks reports that the agent announces its turns itself.
	Hooks        bool   `json:"hooks"`
	Submits      int    `json:"submits"`
	Turns        int    `json:"turns"`
	InputAgeMS   int64  `json:"input_age_ms,omitempty"`
	TurnAgeMS    int64  `json:"turn_age_ms,omitempty"`
	Answered     bool   `json:"answered"` // output beyond the echo since the last input
	TurnsError   string `json:"turns_error,omitempty"`
	RunID        string `json:"run_id"`
	LastActiveMS int64  `json:"last_active_ms"`

	// Times used by Classify, not shown.
	cpuActive, outputAt, inputAt, turnAt time.Time
}

// Observation is the raw material of Signals, gathered by Observe.
type Observation struct {
	Now, StartedAt        time.Time
	Record, RecordReason  string
	RecordEnded, RecordOK bool
	WrapperAlive          bool
	Pane                  *PaneInfo
	TmuxErr               error
	Done                  *Done
	DoneErr               error
	RunID                 string
	AgentPID, AgentProcs  int
	TreeCPU               int64
	ScanErr               error
	Heartbeat             *Heartbeat
	HeartbeatErr          error
	OutputBytes           int64
	OutputAt              time.Time
	Hooks                 bool
	Turns                 Turns
	TurnsErr              error
}

// PaneInfo is the pane as tmux reports it.
type PaneInfo struct {
	PID        int
	Dead       bool
	DeadStatus *int
	Command    string
}

// Verdict is a classified session.
type Verdict struct {
	State   State   `json:"state"`
	Reason  string  `json:"reason"`
	Signals Signals `json:"signals"`
}

func ms(d time.Duration) int64 { return d.Milliseconds() }

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// signals flattens an observation.
func signals(o Observation) Signals {
	s := Signals{
		Now: o.Now, StartedAt: o.StartedAt, AgeMS: ms(o.Now.Sub(o.StartedAt)),
		Record: o.Record, RecordReason: o.RecordReason, WrapperAlive: o.WrapperAlive,
		TmuxError: errText(o.TmuxErr), Done: o.Done, DoneError: errText(o.DoneErr),
		AgentPID: o.AgentPID, AgentProcs: o.AgentProcs, TreeCPU: o.TreeCPU, ScanError: errText(o.ScanErr),
		HeartbeatError: errText(o.HeartbeatErr), OutputBytes: o.OutputBytes,
		Hooks: o.Hooks, Submits: o.Turns.Submits, Turns: o.Turns.Turns, TurnsError: errText(o.TurnsErr),
		RunID: o.RunID, outputAt: o.OutputAt, inputAt: o.Turns.LastSubmitAt, turnAt: o.Turns.LastTurnAt,
	}
	if p := o.Pane; p != nil {
		s.PaneFound, s.PaneDead, s.PaneStatus, s.PanePID, s.PaneCmd = true, p.Dead, p.DeadStatus, p.PID, p.Command
	}
	if hb := o.Heartbeat; hb != nil {
		s.HeartbeatAgeMS = ms(o.Now.Sub(hb.At))
		s.cpuActive = hb.CPUActiveAt
		if !hb.CPUActiveAt.IsZero() {
			s.CPUQuietMS = ms(o.Now.Sub(hb.CPUActiveAt))
		}
	}
	if !o.OutputAt.IsZero() {
		s.OutputQuietMS = ms(o.Now.Sub(o.OutputAt))
	}
	if !s.inputAt.IsZero() {
		s.InputAgeMS = ms(o.Now.Sub(s.inputAt))
	}
	if !s.turnAt.IsZero() {
		s.TurnAgeMS = ms(o.Now.Sub(s.turnAt))
	}
	s.Answered = o.OutputBytes > o.Turns.LogSizeAtSubmit+o.Turns.EchoBytes
	s.LastActiveMS = ms(o.Now.Sub(s.lastActive()))
	return s
}

// lastActive is the newest sign of life of the agent itself.
func (s *Signals) lastActive() time.Time {
	t := s.StartedAt
	for _, u := range []time.Time{s.cpuActive, s.outputAt, s.inputAt, s.turnAt} {
		if u.After(t) {
			t = u
		}
	}
	return t
}

// Classify decides a session's state, process signals first, then the
// agent's own turn events, then CPU and output quiet time.
func Classify(o Observation, set Settings) Verdict {
	s := signals(o)
	v := func(st State, format string, args ...any) Verdict {
		return Verdict{State: st, Reason: fmt.Sprintf(format, args...), Signals: s}
	}
	age := o.Now.Sub(o.StartedAt)

	// 1. The process: how it ended, if it did.
	if d := o.Done; d != nil && (o.RunID == "" || d.RunID == o.RunID) {
		return exited(v, d.ExitCode, d.Signal, o.RecordReason)
	}
	if o.RecordEnded {
		if o.RecordOK {
			return v(Completed, "the agent exited with status 0")
		}
		return v(Crashed, "%s", orText(o.RecordReason, "the session ended with "+o.Record))
	}
	if o.TmuxErr != nil {
		return v(Degraded, "cannot read the tmux server: %v", o.TmuxErr)
	}
	if p := o.Pane; p == nil {
		if o.Record == "pending" && age < set.Grace {
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
	if o.Record == "pending" {
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

	// 2. The agent's own turn events.
	t := o.Turns
	pending := t.Submits > 0 && (t.LastTurnAt.IsZero() || t.LastSubmitAt.After(t.LastTurnAt))
	if o.Hooks && !pending && t.Unconfirmed > 0 && !t.LastTurnAt.IsZero() && t.LastTurnAt.After(t.LastSentAt) &&
		o.Now.Sub(t.LastTurnAt) < ConfirmGrace {
		// Sent while a turn ran: the agent queues it and reports its
		// submit just after that turn's end.
		return v(InProgress, "input %d was queued behind turn %d, which just finished", t.Submits, t.Turns)
	}
	if o.Hooks {
		if !pending && t.Turns > 0 {
			return v(WaitingInput, "turn %d finished %s ago (the agent's turn-complete hook)", t.Turns, round(o.Now.Sub(t.LastTurnAt)))
		}
		if !pending && age >= set.Grace {
			return v(WaitingInput, "no input given yet and the agent is up")
		}
	}
	if age < set.Grace {
		return v(JustStarted, "started %s ago (grace %s)", round(age), set.Grace)
	}

	// 3. Activity: CPU of the whole agent tree and pane output.
	quiet := o.Now.Sub(s.lastActive())
	if o.Hooks {
		if quiet >= set.StuckAfter {
			if t.Unconfirmed > 0 && !t.LastSentAt.Before(t.LastSubmitAt) {
				return v(Stuck, "input %d sent %s ago was never taken by the agent (no submit event), and nothing happened for %s", t.Submits, round(o.Now.Sub(t.LastSentAt)), round(quiet))
			}
			return v(Stuck, "input %d sent %s ago: no output, CPU or turn event for %s", t.Submits, round(o.Now.Sub(t.LastSubmitAt)), round(quiet))
		}
		return v(InProgress, "working on input %d (last sign of activity %s ago)", t.Submits, round(quiet))
	}
	if quiet < set.Quiet {
		return v(InProgress, "active %s ago (output or CPU of its process tree)", round(quiet))
	}
	if s.Answered {
		return v(WaitingInput, "quiet for %s after answering (no turn events from this agent: judged by CPU and output)", round(quiet))
	}
	if quiet >= set.StuckAfter {
		return v(Stuck, "no output or CPU for %s since its last input", round(quiet))
	}
	return v(InProgress, "no answer yet to its last input (quiet for %s, stuck after %s)", round(quiet), set.StuckAfter)
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
