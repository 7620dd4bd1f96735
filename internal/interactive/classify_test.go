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
