package interactive

import (
	"time"

	"github.com/csa-dev/csa/internal/session"
)

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
	// HooksSilent: the agent should announce its turns but no event of its
	// hooks came HookSilence after an input it answered, so CPU and output
	// decide; the first event trusts the hooks again.
	HooksSilent bool `json:"hooks_silent"`
	// ClassifiedBy is what decided the state: process, hooks or activity.
	ClassifiedBy string `json:"classified_by"`
}

// Observation is the raw material of Signals, gathered by Observe.
type Observation struct {
	Now, StartedAt time.Time
	// Record is the session's recorded state, and its reason.
	Record               session.Status
	RecordReason         string
	WrapperAlive         bool
	Pane                 *PaneInfo
	TmuxErr              error
	Done                 *Done
	DoneErr              error
	RunID                string
	AgentPID, AgentProcs int
	TreeCPU              int64
	ScanErr              error
	Heartbeat            *Heartbeat
	HeartbeatErr         error
	OutputBytes          int64
	OutputAt             time.Time
	Hooks                bool
	Turns                Turns
	TurnsErr             error
}

// PaneInfo is the pane as tmux reports it.
type PaneInfo struct {
	PID        int
	Dead       bool
	DeadStatus *int
	Command    string
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
		Record: string(o.Record), RecordReason: o.RecordReason, WrapperAlive: o.WrapperAlive,
		TmuxError: errText(o.TmuxErr), Done: o.Done, DoneError: errText(o.DoneErr),
		AgentPID: o.AgentPID, AgentProcs: o.AgentProcs, TreeCPU: o.TreeCPU, ScanError: errText(o.ScanErr),
		HeartbeatError: errText(o.HeartbeatErr), OutputBytes: o.OutputBytes,
		Hooks: o.Hooks, Submits: o.Turns.Submits, Turns: o.Turns.Turns, TurnsError: errText(o.TurnsErr),
		RunID: o.RunID,
	}
	if p := o.Pane; p != nil {
		s.PaneFound, s.PaneDead, s.PaneStatus, s.PanePID, s.PaneCmd = true, p.Dead, p.DeadStatus, p.PID, p.Command
	}
	if hb := o.Heartbeat; hb != nil {
		s.HeartbeatAgeMS = ms(o.Now.Sub(hb.At))
		if !hb.CPUActiveAt.IsZero() {
			s.CPUQuietMS = ms(o.Now.Sub(hb.CPUActiveAt))
		}
	}
	if !o.OutputAt.IsZero() {
		s.OutputQuietMS = ms(o.Now.Sub(o.OutputAt))
	}
	if t := o.Turns.LastSubmitAt; !t.IsZero() {
		s.InputAgeMS = ms(o.Now.Sub(t))
	}
	if t := o.Turns.LastTurnAt; !t.IsZero() {
		s.TurnAgeMS = ms(o.Now.Sub(t))
	}
	s.Answered = o.answered()
	s.HooksSilent = o.hooksSilent()
	s.LastActiveMS = ms(o.Now.Sub(o.lastActive()))
	return s
}

// answered: the pane showed more since the last input than its echo.
func (o *Observation) answered() bool {
	return o.OutputBytes > o.Turns.LogSizeAtSubmit+o.Turns.EchoBytes
}

// hooksSilent: the agent was given hooks but has run none of them (no
// ready, submit or turn-complete event) though an input it answered was
// submitted HookSilence ago. Once the hooks were heard they are trusted:
// an input queued behind a long turn gets no event until that turn ends.
func (o *Observation) hooksSilent() bool {
	t := o.Turns
	return o.Hooks && t.Submits > 0 && !t.HooksHeard() && o.answered() && o.Now.Sub(o.inputAt()) >= HookSilence
}

// inputAt is when the last input was given, or when the agent started if
// later (a first prompt is recorded before the agent runs).
func (o *Observation) inputAt() time.Time {
	if o.Turns.LastSubmitAt.After(o.StartedAt) {
		return o.Turns.LastSubmitAt
	}
	return o.StartedAt
}

// lastActive is the newest sign of life of the agent itself.
func (o *Observation) lastActive() time.Time {
	t := o.StartedAt
	var cpu time.Time
	if o.Heartbeat != nil {
		cpu = o.Heartbeat.CPUActiveAt
	}
	for _, u := range []time.Time{cpu, o.OutputAt, o.Turns.LastSubmitAt, o.Turns.LastTurnAt} {
		if u.After(t) {
			t = u
		}
	}
	return t
}
