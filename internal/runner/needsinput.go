package runner

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/interactive"
	"github.com/csa-dev/csa/internal/runhooks"
	"github.com/csa-dev/csa/internal/session"
)

// needsInput is the pane wrapper's watch for the moment its agent starts
// needing input: each heartbeat it classifies the session from what it
// sees first hand (its own agent, the heartbeat it just took, the pane log,
// the turn record), with the classifier `csa status` uses, and fires the
// on_needs_input hooks when the state becomes waiting_input. The hooks run
// one at a time beside the heartbeat; the session's end waits for them.
type needsInput struct {
	l       *life
	dir     string
	set     interactive.Settings
	started time.Time
	prev    interactive.State
	input   int        // the input (Turns.Submits) prev was seen after
	mu      sync.Mutex // held while the hooks of one change run
	wg      sync.WaitGroup
}

func newNeedsInput(l *life, dir string) *needsInput {
	sp := l.run.Spec
	if sp.Classifier == nil || !sp.Hooks.Has(runhooks.OnNeedsInput) || l.run.State.Interactive == nil {
		return nil
	}
	return &needsInput{l: l, dir: dir, set: *sp.Classifier, started: time.Now()}
}

// check classifies after a heartbeat hb.
func (n *needsInput) check(hb interactive.Heartbeat) {
	if n == nil {
		return
	}
	st := n.l.run.State
	o := interactive.Observation{
		Now: time.Now(), StartedAt: n.started, Record: session.Running, WrapperAlive: true,
		Pane: &interactive.PaneInfo{PID: os.Getpid()}, RunID: st.Interactive.RunID, Hooks: st.Interactive.Hooks,
		AgentPID: hb.AgentPID, AgentProcs: hb.Procs, TreeCPU: hb.CPUTicks, Heartbeat: &hb,
	}
	if fi, err := os.Stat(filepath.Join(n.dir, interactive.PaneLog)); err == nil {
		o.OutputBytes, o.OutputAt = fi.Size(), fi.ModTime()
	}
	o.Turns, o.TurnsErr = interactive.ReadTurns(n.dir)
	v := interactive.Classify(o, n.set)
	if v.State == interactive.Degraded {
		return
	}
	// A turn answered between two heartbeats never shows in_progress
	// here: a new input since the last firing is a new change too.
	prev, prevInput := n.prev, n.input
	n.prev, n.input = v.State, o.Turns.Submits
	if v.State != interactive.WaitingInput || prev == interactive.WaitingInput && prevInput == o.Turns.Submits {
		return
	}
	// The run's copy of the state is the one it started from: the hooks
	// get the session as recorded now.
	if cur, err := n.l.s.Store.Load(st.ID); err == nil {
		st = cur
	}
	vars := HookVars(n.l.s.Store, st)
	vars.Reason = v.Reason
	env := n.l.hookEnv()
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		n.mu.Lock()
		defer n.mu.Unlock()
		n.l.recordHooks(n.l.run.Spec.Hooks.Fire(context.Background(), runhooks.OnNeedsInput, vars, env))
	}()
}

// wait lets the hooks still running end (each bounded by its timeout), so
// that the session's end stays its last event.
func (n *needsInput) wait() {
	if n != nil {
		n.wg.Wait()
	}
}
