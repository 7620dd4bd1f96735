package todo

import (
	"context"
	"errors"
	"fmt"

	"github.com/csa-dev/csa/internal/lock"
)

// Agents starts and waits for the runs of tasks (csa sub-agents; a fake in
// tests).
type Agents interface {
	// Start starts a run of t and returns its session id at once.
	Start(ctx context.Context, t *Task) (string, error)
	// Wait waits until session id has ended; ErrNoSession when it does
	// not exist (removed).
	Wait(ctx context.Context, id string) (Outcome, error)
}

// Outcome is how a run ended.
type Outcome struct {
	OK     bool
	State  string // the session's final state
	Reason string
}

// ErrNoSession is a recorded session that no longer exists.
var ErrNoSession = errors.New("no such session")

// ErrNotApproved refuses to run a draft plan.
var ErrNotApproved = errors.New("plan is a draft")

// ErrBusy refuses a second `todo run` of a plan that one is running.
var ErrBusy = errors.New("plan is being run")

// What became of a task in a run.
const (
	DoneBefore = "done_before" // it was done when the run began
	DoneNow    = "done"        // its run completed
	Failed     = "failed"      // its run failed (or could not start)
	Blocked    = "blocked"     // a task it depends on failed
	Running    = "running"     // interrupted while its run went on
	NotRun     = "not_run"     // interrupted before it started
)

// TaskResult is one task in a run's summary.
type TaskResult struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	Outcome   string `json:"outcome"`
	SessionID string `json:"session_id,omitempty"`
	Reason    string `json:"reason,omitempty"`
	BlockedBy string `json:"blocked_by,omitempty"`
}

// Summary is what a `todo run` did.
type Summary struct {
	Plan        string       `json:"plan"`
	Status      Status       `json:"status"`
	Tasks       []TaskResult `json:"tasks"`
	Failed      int          `json:"failed"`
	Blocked     int          `json:"blocked"`
	Interrupted bool         `json:"interrupted"`
}

// RunOptions tune Run.
type RunOptions struct {
	Parallel int          // runs at once (at least 1)
	Say      func(string) // progress, one line at a time
}

// Run runs the tasks of plan id that are not done as sub-agent runs, in
// dependency order, up to o.Parallel at once: each run's session is
// recorded before it is waited for, each task that completes is marked
// done, a failed one blocks its dependents while the others go on. The
// plan becomes implementing, and done once every task is. A task whose
// run was started by a `todo run` that died is waited for, not started
// again. When ctx ends, nothing more starts; the runs started go on.
func Run(ctx context.Context, s *Store, id string, a Agents, o RunOptions) (*Summary, error) {
	held, err := s.runLock(id)
	if err != nil {
		return nil, err
	}
	defer held.Unlock()
	say := o.Say
	if say == nil {
		say = func(string) {}
	}
	p, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	if p.Status == Draft {
		return nil, fmt.Errorf("%w: approve it first (csa todo status %s approved)", ErrNotApproved, id)
	}
	if p.Status != Implementing && !(p.Status == Done && allDone(p)) {
		if p, err = s.SetStatus(ctx, id, Implementing); err != nil {
			return nil, err
		}
	}
	r := &run{s: s, id: id, a: a, say: say, plan: p, res: map[string]*TaskResult{}}
	r.loop(ctx, max(o.Parallel, 1))
	sum := &Summary{Plan: id, Status: p.Status, Interrupted: ctx.Err() != nil}
	for _, t := range p.Tasks {
		tr := r.res[t.ID]
		if tr == nil {
			tr = &TaskResult{Outcome: NotRun}
		}
		tr.ID, tr.Title = t.ID, t.Title
		switch tr.Outcome {
		case Failed:
			sum.Failed++
		case Blocked:
			sum.Blocked++
		}
		sum.Tasks = append(sum.Tasks, *tr)
	}
	if latest, err := s.Get(id); err == nil && allDone(latest) && latest.Status != Done {
		if latest, err = s.SetStatus(context.WithoutCancel(ctx), id, Done); err != nil {
			return sum, err
		}
		say("plan " + id + " is done")
		sum.Status = latest.Status
	} else if err == nil {
		sum.Status = latest.Status
	}
	return sum, nil
}

func allDone(p *Plan) bool {
	for _, t := range p.Tasks {
		if !t.Done {
			return false
		}
	}
	return true
}

// runLock is held by the one `todo run` of plan id; the kernel lets go of
// it when that dies.
func (s *Store) runLock(id string) (*lock.Lock, error) {
	if err := mkdirParent(s.Dir); err != nil {
		return nil, err
	}
	l := lock.New(s.Dir + "." + id + ".run.lock")
	ok, err := l.TryLock()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w by another csa todo run", ErrBusy)
	}
	return l, nil
}

// run is one `todo run` under way.
type run struct {
	s    *Store
	id   string
	a    Agents
	say  func(string)
	plan *Plan
	res  map[string]*TaskResult
}

func (r *run) loop(ctx context.Context, parallel int) {
	for _, t := range r.plan.Tasks {
		if t.Done {
			r.res[t.ID] = &TaskResult{Outcome: DoneBefore, SessionID: t.Session}
		}
	}
	type ended struct {
		id  string
		res *TaskResult
	}
	results := make(chan ended)
	running := map[string]bool{}
	for {
		for _, t := range r.ready(running) {
			if ctx.Err() != nil || len(running) >= parallel {
				break
			}
			running[t.ID] = true
			go func() { results <- ended{t.ID, r.task(ctx, t)} }()
		}
		if len(running) == 0 {
			return
		}
		e := <-results
		delete(running, e.id)
		r.res[e.id] = e.res
		if e.res.Outcome != Failed {
			continue
		}
		for _, d := range Dependents(r.plan, e.id) {
			if r.res[d.ID] == nil {
				r.res[d.ID] = &TaskResult{Outcome: Blocked, BlockedBy: e.id}
				r.say(fmt.Sprintf("task %s: not run: it depends on %s, which failed", d.ID, e.id))
			}
		}
	}
}

// ready are the tasks not yet decided nor running whose dependencies are
// done, in written order.
func (r *run) ready(running map[string]bool) []*Task {
	var out []*Task
next:
	for _, t := range r.plan.Tasks {
		if r.res[t.ID] != nil || running[t.ID] {
			continue
		}
		for _, d := range t.After {
			if o := r.res[d]; o == nil || (o.Outcome != DoneBefore && o.Outcome != DoneNow) {
				continue next
			}
		}
		out = append(out, t)
	}
	return out
}

// task runs one task to its end, or waits for the run a dead `todo run`
// started, and records the result in the plan.
func (r *run) task(ctx context.Context, t *Task) *TaskResult {
	// What is recorded must be, even when ctx has just ended: the run
	// started goes on.
	keep := context.WithoutCancel(ctx)
	sid := t.Session
	var out Outcome
	var err error
	if sid != "" {
		r.say(fmt.Sprintf("task %s: waiting for session %s, started by an earlier csa todo run", t.ID, sid))
		out, err = r.a.Wait(ctx, sid)
		if errors.Is(err, ErrNoSession) {
			r.say(fmt.Sprintf("task %s: session %s is gone: starting it again", t.ID, sid))
			sid = ""
		}
	}
	if sid == "" {
		if ctx.Err() != nil {
			return &TaskResult{Outcome: NotRun}
		}
		if sid, err = r.a.Start(ctx, t); err != nil {
			if ctx.Err() != nil {
				return &TaskResult{Outcome: NotRun}
			}
			r.say(fmt.Sprintf("task %s: could not start: %v", t.ID, err))
			return &TaskResult{Outcome: Failed, Reason: "could not start: " + err.Error()}
		}
		if _, rerr := r.s.Update(keep, r.id, func(p *Plan) (string, error) {
			if pt := p.Task(t.ID); pt != nil {
				pt.Session = sid
			}
			return fmt.Sprintf("task %s started (session %s)", t.ID, sid), nil
		}); rerr != nil {
			r.say(fmt.Sprintf("task %s: recording session %s: %v", t.ID, sid, rerr))
		}
		r.say(fmt.Sprintf("task %s: started session %s", t.ID, sid))
		out, err = r.a.Wait(ctx, sid)
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return &TaskResult{Outcome: Running, SessionID: sid}
	case err != nil:
		out = Outcome{State: "unknown", Reason: err.Error()}
	}
	if out.OK {
		_, rerr := r.s.Update(keep, r.id, func(p *Plan) (string, error) {
			if pt := p.Task(t.ID); pt != nil {
				pt.Done = true
			}
			return fmt.Sprintf("task %s done (session %s)", t.ID, sid), nil
		})
		if rerr != nil {
			return &TaskResult{Outcome: Failed, SessionID: sid, Reason: "marking it done: " + rerr.Error()}
		}
		r.say(fmt.Sprintf("task %s: done (session %s)", t.ID, sid))
		return &TaskResult{Outcome: DoneNow, SessionID: sid}
	}
	why := out.State
	if out.Reason != "" {
		why += ": " + out.Reason
	}
	// The session line goes: the next `todo run` starts the task afresh;
	// the history keeps which session failed and why.
	r.s.Update(keep, r.id, func(p *Plan) (string, error) {
		if pt := p.Task(t.ID); pt != nil && pt.Session == sid {
			pt.Session = ""
		}
		return fmt.Sprintf("task %s failed (session %s): %s", t.ID, sid, why), nil
	})
	r.say(fmt.Sprintf("task %s: failed (session %s): %s", t.ID, sid, why))
	return &TaskResult{Outcome: Failed, SessionID: sid, Reason: why}
}
