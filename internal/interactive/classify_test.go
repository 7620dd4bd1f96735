package interactive

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/session"
)

func TestClassify(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	set := Settings{Grace: 5 * time.Second, Quiet: 3 * time.Second, StuckAfter: time.Minute}
	seven := 7
	// live is a healthy running session at age d with fresh heartbeat.
	live := func(d time.Duration, hooks bool) Observation {
		now := t0.Add(d)
		return Observation{
			Now: now, StartedAt: t0, Record: session.Running, WrapperAlive: true, RunID: "r1",
			Pane: &PaneInfo{PID: 100}, AgentPID: 101, Hooks: hooks,
			Heartbeat: &Heartbeat{At: now.Add(-500 * time.Millisecond), CPUActiveAt: t0},
		}
	}
	with := func(o Observation, f func(*Observation)) Observation { f(&o); return o }
	cases := []struct {
		name   string
		o      Observation
		state  State
		reason string
	}{
		{"done file exit 0", with(live(time.Minute, true), func(o *Observation) { o.Done = &Done{RunID: "r1"} }), Completed, "status 0"},
		{"done file exit 7", with(live(time.Minute, true), func(o *Observation) { o.Done = &Done{RunID: "r1", ExitCode: 7} }), Crashed, "status 7"},
		{"done file of an agent that never started", with(live(time.Minute, true), func(o *Observation) {
			o.Done = &Done{RunID: "r1", ExitCode: -1}
			o.RecordReason = "start /nope: no such file"
		}), Crashed, "did not start (start /nope"},
		{"stale done file of another run", with(live(time.Minute, true), func(o *Observation) {
			o.Done = &Done{RunID: "old", ExitCode: 7}
			o.Turns = Turns{Submits: 1, LastSubmitAt: t0, Turns: 1, LastTurnAt: t0.Add(time.Second)}
		}), WaitingInput, "turn 1"},
		{"record ended failed", with(live(time.Minute, true), func(o *Observation) {
			o.Record, o.RecordReason = session.Failed, "exited with status 3"
		}), Crashed, "exited with status 3"},
		{"record killed", with(live(time.Minute, true), func(o *Observation) {
			o.Record, o.RecordReason = session.Killed, "killed by csa kill"
		}), Killed, "killed by csa kill"},
		{"record killed, agent ended by a signal", with(live(time.Minute, true), func(o *Observation) {
			o.Record, o.RecordReason = session.Killed, "killed by csa kill"
			o.Done = &Done{RunID: "r1", ExitCode: 143, Signal: "SIGTERM"}
		}), Killed, "killed by csa kill (the agent ended by SIGTERM)"},
		{"pane gone", with(live(time.Minute, true), func(o *Observation) { o.Pane = nil }), Crashed, "tmux session is gone"},
		{"pane dead with status", with(live(time.Minute, true), func(o *Observation) { o.Pane.Dead, o.Pane.DeadStatus = true, &seven }), Crashed, "status 7"},
		{"tmux unreadable", with(live(time.Minute, true), func(o *Observation) { o.TmuxErr = errors.New("boom") }), Degraded, "tmux"},
		{"wrapper dead", with(live(time.Minute, true), func(o *Observation) { o.WrapperAlive = false }), Crashed, "wrapper"},
		{"no agent process", with(live(time.Minute, true), func(o *Observation) { o.AgentPID = 0 }), Degraded, "no agent process"},
		{"process table unreadable", with(live(time.Minute, true), func(o *Observation) { o.ScanErr = errors.New("eperm") }), Degraded, "process table"},
		{"stale heartbeat", with(live(time.Minute, true), func(o *Observation) { o.Heartbeat.At = o.Now.Add(-time.Minute) }), Degraded, "heartbeat is stale"},
		{"pending young", with(live(time.Second, true), func(o *Observation) { o.Record = session.Pending }), JustStarted, "starting"},
		{"pending old", with(live(time.Minute, true), func(o *Observation) { o.Record = session.Pending }), Degraded, "did not start"},
		{"grace", with(live(2*time.Second, true), func(o *Observation) { o.Turns = Turns{Submits: 1, LastSubmitAt: t0} }), JustStarted, "grace 5s"},
		{"hooks: turn done", with(live(10*time.Second, true), func(o *Observation) {
			o.Turns = Turns{Submits: 1, LastSubmitAt: t0, Turns: 1, LastTurnAt: t0.Add(4 * time.Second)}
		}), WaitingInput, "turn 1 finished 6s ago"},
		{"hooks: turn done within grace", with(live(2*time.Second, true), func(o *Observation) {
			o.Turns = Turns{Submits: 1, LastSubmitAt: t0, Turns: 1, LastTurnAt: t0.Add(time.Second)}
		}), WaitingInput, "turn 1"},
		{"hooks: no input yet", live(10*time.Second, true), WaitingInput, "no input given yet"},
		{"hooks: working", with(live(10*time.Second, true), func(o *Observation) {
			o.Turns = Turns{Submits: 2, LastSubmitAt: t0.Add(8 * time.Second), Turns: 1, LastTurnAt: t0.Add(4 * time.Second)}
		}), InProgress, "working on input 2"},
		{"hooks: stuck", with(live(3*time.Minute, true), func(o *Observation) {
			o.Turns = Turns{Submits: 2, LastSubmitAt: t0.Add(10 * time.Second), Turns: 1, LastTurnAt: t0.Add(4 * time.Second)}
			o.OutputAt = t0.Add(11 * time.Second)
		}), Stuck, "no output, CPU or turn event"},
		{"hooks: long turn kept alive by output", with(live(3*time.Minute, true), func(o *Observation) {
			o.Turns = Turns{Submits: 1, LastSubmitAt: t0}
			o.OutputAt = o.Now.Add(-time.Second)
		}), InProgress, "working"},
		{"hooks: input queued behind the turn that just ended", with(live(10*time.Second, true), func(o *Observation) {
			o.Turns = Turns{Submits: 2, LastSubmitAt: t0.Add(8 * time.Second), LastSentAt: t0.Add(8 * time.Second), Unconfirmed: 1,
				Turns: 1, LastTurnAt: t0.Add(9 * time.Second)}
		}), InProgress, "queued behind turn 1"},
		{"hooks: an unconfirmed input long after the turn is dropped", with(live(20*time.Second, true), func(o *Observation) {
			o.Turns = Turns{Submits: 2, LastSubmitAt: t0.Add(8 * time.Second), LastSentAt: t0.Add(8 * time.Second), Unconfirmed: 1,
				Turns: 1, LastTurnAt: t0.Add(9 * time.Second)}
		}), WaitingInput, "turn 1 finished"},
		{"hooks: an input never taken is stuck with that reason", with(live(3*time.Minute, true), func(o *Observation) {
			o.Turns = Turns{Submits: 2, LastSubmitAt: t0.Add(10 * time.Second), LastSentAt: t0.Add(10 * time.Second), Unconfirmed: 1,
				Turns: 1, LastTurnAt: t0.Add(4 * time.Second)}
		}), Stuck, "never taken by the agent"},
		{"no hooks: active", with(live(10*time.Second, false), func(o *Observation) {
			o.Turns = Turns{Submits: 1, LastSubmitAt: t0}
			o.Heartbeat.CPUActiveAt = o.Now.Add(-time.Second)
		}), InProgress, "active"},
		{"no hooks: answered and quiet", with(live(10*time.Second, false), func(o *Observation) {
			o.Turns = Turns{Submits: 1, LastSubmitAt: t0}
			o.OutputBytes, o.OutputAt = 40, t0.Add(time.Second)
		}), WaitingInput, "after answering"},
		{"no hooks: only the echo of the input", with(live(10*time.Second, false), func(o *Observation) {
			o.Turns = Turns{Submits: 2, LastSubmitAt: t0.Add(time.Second), LogSizeAtSubmit: 40, EchoBytes: 10}
			o.OutputBytes, o.OutputAt = 50, t0.Add(time.Second)
		}), InProgress, "no answer yet"},
		{"no hooks: silent hang", with(live(2*time.Minute, false), func(o *Observation) { o.Turns = Turns{Submits: 1, LastSubmitAt: t0} }), Stuck, "no output or CPU"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(c.o, set)
			if v.State != c.state || !strings.Contains(v.Reason, c.reason) {
				t.Fatalf("got %s (%s), want %s (%q)", v.State, v.Reason, c.state, c.reason)
			}
		})
	}
}

func TestParseState(t *testing.T) {
	for _, s := range States {
		if got, err := ParseState(string(s)); err != nil || got != s {
			t.Fatalf("ParseState(%s) = %s, %v", s, got, err)
		}
	}
	if _, err := ParseState("done"); err == nil || !strings.Contains(err.Error(), "waiting_input") {
		t.Fatalf("ParseState(done): %v", err)
	}
}

// An agent given hooks that never runs them is judged by CPU and output
// once an input it answered is HookSilence old; any hook event restores
// the hooks.
func TestClassifySilentHooks(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	set := Settings{Grace: 5 * time.Second, Quiet: 3 * time.Second, StuckAfter: time.Minute}
	// at is a live hooked session at age d whose first prompt (input 1,
	// not confirmed by a submit hook) was answered on the pane at 1 s.
	at := func(d time.Duration, f func(*Observation)) Observation {
		now := t0.Add(d)
		o := Observation{
			Now: now, StartedAt: t0, Record: session.Running, WrapperAlive: true, RunID: "r1",
			Pane: &PaneInfo{PID: 100}, AgentPID: 101, Hooks: true,
			Heartbeat:   &Heartbeat{At: now.Add(-500 * time.Millisecond), CPUActiveAt: t0.Add(time.Second)},
			Turns:       Turns{Submits: 1, LastSubmitAt: t0, Unconfirmed: 1},
			OutputBytes: 40, OutputAt: t0.Add(time.Second),
		}
		if f != nil {
			f(&o)
		}
		return o
	}
	silence := HookSilence + time.Second
	cases := []struct {
		name   string
		o      Observation
		state  State
		reason string
		by     string
		silent bool
	}{
		{"no hook event yet, within HookSilence", at(HookSilence-time.Second, nil), InProgress, "working on input 1", ByHooks, false},
		{"no hook event after HookSilence: quiet after answering", at(silence, nil), WaitingInput,
			"quiet for 10s after answering (no turn events from the agent's hooks for 11s after input 1: judged by CPU and output)", ByActivity, true},
		{"no hook event after HookSilence: still active", at(silence, func(o *Observation) { o.OutputAt = o.Now.Add(-time.Second) }),
			InProgress, "active 1s ago (output or CPU of its process tree; no turn events from the agent's hooks", ByActivity, true},
		{"the window starts when the agent does", at(silence, func(o *Observation) { o.StartedAt = t0.Add(5 * time.Second); o.OutputAt = o.StartedAt }),
			InProgress, "working on input 1", ByHooks, false},
		{"a sent input: the window starts at the send", at(time.Minute, func(o *Observation) {
			o.Turns = Turns{Submits: 2, LastSubmitAt: o.Now.Add(-5 * time.Second), LastSentAt: o.Now.Add(-5 * time.Second), Unconfirmed: 2,
				LogSizeAtSubmit: 40, EchoBytes: 10}
			o.OutputBytes, o.OutputAt = 80, o.Now.Add(-4*time.Second)
		}), InProgress, "working on input 2", ByHooks, false},
		{"a sent input answered, no hook event for HookSilence", at(time.Minute, func(o *Observation) {
			o.Turns = Turns{Submits: 2, LastSubmitAt: o.Now.Add(-silence), LastSentAt: o.Now.Add(-silence), Unconfirmed: 2,
				LogSizeAtSubmit: 40, EchoBytes: 10}
			o.OutputBytes, o.OutputAt = 80, o.Now.Add(-silence+time.Second)
		}), WaitingInput, "hooks for 11s after input 2", ByActivity, true},
		{"only the echo on the pane: the hooks still decide", at(time.Minute, func(o *Observation) {
			o.Turns = Turns{Submits: 2, LastSubmitAt: o.Now.Add(-silence), LastSentAt: o.Now.Add(-silence), Unconfirmed: 2,
				LogSizeAtSubmit: 40, EchoBytes: 10}
			o.OutputBytes, o.OutputAt = 50, o.Now.Add(-silence)
		}), InProgress, "working on input 2", ByHooks, false},
		{"the submit hook ran: hooks trusted", at(time.Minute, func(o *Observation) {
			o.Turns.Unconfirmed, o.Turns.LastSubmitAt = 0, t0.Add(2*time.Second)
		}), InProgress, "working on input 1", ByHooks, false},
		{"the ready hook ran: hooks trusted", at(time.Minute, func(o *Observation) { o.Turns.ReadyAt = t0.Add(time.Second) }),
			InProgress, "working on input 1", ByHooks, false},
		{"a late turn event: hooks trusted again", at(time.Minute, func(o *Observation) {
			o.Turns.Turns, o.Turns.LastTurnAt = 1, o.Now.Add(-ConfirmGrace-time.Second)
		}), WaitingInput, "turn 1 finished", ByHooks, false},
		{"a tool without hooks is never silent", at(time.Minute, func(o *Observation) { o.Hooks = false }),
			WaitingInput, "no turn events from this agent", ByActivity, false},
		{"the process decides first", at(time.Minute, func(o *Observation) { o.Done = &Done{RunID: "r1"} }),
			Completed, "status 0", ByProcess, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(c.o, set)
			if v.State != c.state || !strings.Contains(v.Reason, c.reason) {
				t.Fatalf("got %s (%s), want %s (%q)", v.State, v.Reason, c.state, c.reason)
			}
			if v.Signals.ClassifiedBy != c.by || v.Signals.HooksSilent != c.silent {
				t.Fatalf("classified_by %q, hooks_silent %v; want %q, %v", v.Signals.ClassifiedBy, v.Signals.HooksSilent, c.by, c.silent)
			}
		})
	}
}
