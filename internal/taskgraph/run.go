package taskgraph

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/csa-dev/csa/internal/session"
)

// Spec is what a task's run is: its prompt and how csa runs it.
type Spec struct {
	Prompt  string
	Tool    string // "" the runner's default (else csa's)
	Tier    string // or a tier of [tiers]
	Model   string
	Dir     string        // the agent's working directory ("" the runner's)
	Timeout time.Duration // 0: csa's default
	// Worktree, when set, says whether the run works in a git worktree of
	// its own (csa run --worktree); nil leaves it to csa's configuration.
	Worktree *bool
	// WorktreeBase, with Worktree, is the commit or branch the run's
	// worktree starts from (csa run --worktree-base) instead of the
	// caller's tree.
	WorktreeBase string
	// Isolate, when set, is what the run confines (csa run --isolate: fs,
	// net, fs,net or none); "" leaves it to csa's configuration.
	Isolate string
	// MaxCostUSD stops the run once it and the runs it started cost more
	// (csa run --max-cost); 0 for no limit.
	MaxCostUSD float64
}

// Task is a node of the graph with its run and what earlier runs left.
type Task struct {
	Node
	Spec
	// Done: it completed before this run; it is not run again.
	Done bool
	// Session was recorded by an earlier run that died, before it
	// launched it: it is launched again with this id, and waited for when
	// that launch finds it exists (never started twice).
	Session string
	Started time.Time // when Session started, if known
}

// Agents starts and waits for the runs of tasks (csa sub-agents; a fake in
// tests).
type Agents interface {
	// Start starts a run of t as session id and returns at once; an
	// error that Is ErrSessionExists when session id exists (an earlier
	// Start of it made it).
	Start(ctx context.Context, t *Task, id string) error
	// Wait waits until session id has ended; ErrNoSession when it does
	// not exist (removed).
	Wait(ctx context.Context, id string) (Outcome, error)
	// Exists reports whether session id exists: a launch cut short by an
	// interrupt may have made it.
	Exists(ctx context.Context, id string) bool
}

// Outcome is how a run ended.
type Outcome struct {
	OK     bool
	State  string // the session's final state
	Class  string // its failure class, if it failed
	Reason string
}

// Why is the state and reason of a run that failed.
func (o Outcome) Why() string {
	if o.Reason == "" {
		return o.State
	}
	return o.State + ": " + o.Reason
}

// ErrNoSession is a recorded session that no longer exists.
var ErrNoSession = errors.New("no such session")

// Journal records a run's progress where the next run can find it.
type Journal interface {
	// Starting records that t's run is to be session sid, durably, before
	// it is launched: an error and it is not.
	Starting(ctx context.Context, t *Task, sid string, at time.Time) error
	// Started records that t's run is session sid, before it is waited
	// for.
	Started(ctx context.Context, t *Task, sid string, at time.Time) error
	// Ended records how it ended, at at. An error when o.OK makes the
	// task failed: a completion not recorded would be run again.
	Ended(ctx context.Context, t *Task, sid string, o Outcome, at time.Time) error
}

// What became of a task in a run.
const (
	DoneBefore = "done_before" // it was done when the run began
	DoneNow    = "done"        // its run completed
	Failed     = "failed"      // its run failed (or could not start)
	Blocked    = "blocked"     // a task it depends on failed
	Running    = "running"     // interrupted while its run went on
	NotRun     = "not_run"     // interrupted (or stopped by fail-fast) before it started
)

// Result is what became of one task.
type Result struct {
	ID        string
	Outcome   string
	SessionID string
	Class     string // the failure class of a failed run
	Reason    string
	BlockedBy string
	Started   time.Time // zero when no run was started or waited for
	Ended     time.Time
}

// Options tune Run.
type Options struct {
	Parallel int  // runs at once, at most (0: no bound of its own)
	FailFast bool // start nothing more after the first failure
	// Who names the kind of run in messages ("csa todo run").
	Who string
	Say func(string) // progress, one line at a time
	Now func() time.Time
	// NewID names a new run's session (default: a fresh ULID).
	NewID func() string
}

// Run runs the tasks not done as sub-agent runs, in dependency order, up
// to o.Parallel at once: each run's session is recorded before it is
// waited for, a failed task blocks its dependents while the others go on.
// A task whose run an earlier scheduler started is waited for, not
// started again. When ctx ends, nothing more starts and nothing more is
// waited for; the runs started go on. The results are in the tasks'
// order. tasks must have passed Check.
func Run(ctx context.Context, tasks []*Task, a Agents, j Journal, o Options) []Result {
	if o.Say == nil {
		o.Say = func(string) {}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NewID == nil {
		o.NewID = func() string { return session.NewID(o.Now()) }
	}
	s := &sched{tasks: tasks, a: a, j: j, o: o, res: map[string]*Result{}}
	s.loop(ctx)
	out := make([]Result, len(tasks))
	for i, t := range tasks {
		r := s.res[t.ID]
		if r == nil {
			r = &Result{Outcome: NotRun}
		}
		r.ID = t.ID
		out[i] = *r
	}
	return out
}

type sched struct {
	tasks  []*Task
	a      Agents
	j      Journal
	o      Options
	res    map[string]*Result
	failed string // the first task that failed, for --fail-fast
}

func (s *sched) loop(ctx context.Context) {
	nodes := make([]Node, len(s.tasks))
	for i, t := range s.tasks {
		nodes[i] = t.Node
		if t.Done {
			s.res[t.ID] = &Result{Outcome: DoneBefore, SessionID: t.Session}
		}
	}
	type ended struct {
		id  string
		res *Result
	}
	results := make(chan ended)
	running := map[string]bool{}
	for {
		for _, t := range s.ready(running) {
			if ctx.Err() != nil || (s.o.Parallel > 0 && len(running) >= s.o.Parallel) || (s.o.FailFast && s.failed != "") {
				break
			}
			running[t.ID] = true
			go func() { results <- ended{t.ID, s.task(ctx, t)} }()
		}
		if len(running) == 0 {
			s.stopped()
			return
		}
		e := <-results
		delete(running, e.id)
		s.res[e.id] = e.res
		if e.res.Outcome != Failed {
			continue
		}
		if s.failed == "" {
			s.failed = e.id
		}
		for _, d := range Dependents(nodes, e.id) {
			if id := s.tasks[d].ID; s.res[id] == nil {
				s.res[id] = &Result{Outcome: Blocked, BlockedBy: e.id}
				s.o.Say(fmt.Sprintf("task %s: not run: it depends on %s, which failed", id, e.id))
			}
		}
	}
}

// stopped says why tasks left undecided were not run: fail-fast.
func (s *sched) stopped() {
	if !s.o.FailFast || s.failed == "" {
		return
	}
	for _, t := range s.tasks {
		if s.res[t.ID] == nil {
			s.res[t.ID] = &Result{Outcome: NotRun, Reason: "not started: fail-fast after " + s.failed + " failed"}
		}
	}
}

// ready are the tasks not yet decided nor running whose dependencies are
// done, in written order.
func (s *sched) ready(running map[string]bool) []*Task {
	var out []*Task
next:
	for _, t := range s.tasks {
		if s.res[t.ID] != nil || running[t.ID] {
			continue
		}
		for _, d := range t.After {
			if r := s.res[d]; r == nil || (r.Outcome != DoneBefore && r.Outcome != DoneNow) {
				continue next
			}
		}
		out = append(out, t)
	}
	return out
}

// task runs one task to its end, or waits for the run an earlier
// scheduler launched, and records the result in the journal. A run's
// session id is chosen and recorded (Journal.Starting) before the launch:
// a scheduler killed at any moment leaves no run unrecorded, and the next
// one launches the recorded id again, which the launch refuses
// (ErrSessionExists) when the session exists: then it is waited for.
func (s *sched) task(ctx context.Context, t *Task) *Result {
	// What is recorded must be, even when ctx has just ended: the run
	// started goes on.
	keep := context.WithoutCancel(ctx)
	if ctx.Err() != nil {
		return &Result{Outcome: NotRun}
	}
	sid, started := t.Session, t.Started
	if sid == "" {
		sid = s.o.NewID()
		if err := s.j.Starting(keep, t, sid, s.o.Now()); err != nil {
			s.o.Say(fmt.Sprintf("task %s: could not record its session before starting it: %v", t.ID, err))
			return &Result{Outcome: Failed, Class: "start_failed", Reason: "could not record its session before starting it: " + err.Error()}
		}
	}
	err := s.a.Start(ctx, t, sid)
	switch {
	case errors.Is(err, ErrSessionExists):
		s.o.Say(fmt.Sprintf("task %s: waiting for session %s, started by an earlier %s", t.ID, sid, s.o.Who))
		if started.IsZero() {
			started = s.o.Now()
		}
	case err != nil && ctx.Err() != nil:
		// Interrupted while it was launched: the run may have started
		// all the same, and then goes on.
		if s.a.Exists(keep, sid) {
			return &Result{Outcome: Running, SessionID: sid, Started: s.o.Now()}
		}
		return &Result{Outcome: NotRun}
	case err != nil:
		s.o.Say(fmt.Sprintf("task %s: could not start: %v", t.ID, err))
		out := Outcome{State: "not_started", Class: "start_failed", Reason: "could not start: " + err.Error()}
		if jerr := s.j.Ended(keep, t, sid, out, s.o.Now()); jerr != nil {
			s.o.Say(fmt.Sprintf("task %s: recording its failure: %v", t.ID, jerr))
		}
		return &Result{Outcome: Failed, Class: out.Class, Reason: out.Reason}
	default:
		started = s.o.Now()
		if jerr := s.j.Started(keep, t, sid, started); jerr != nil {
			s.o.Say(fmt.Sprintf("task %s: recording session %s: %v", t.ID, sid, jerr))
		}
		s.o.Say(fmt.Sprintf("task %s: started session %s", t.ID, sid))
	}
	out, err := s.a.Wait(ctx, sid)
	switch {
	case err != nil && ctx.Err() != nil:
		return &Result{Outcome: Running, SessionID: sid, Started: started}
	case err != nil:
		out = Outcome{State: "unknown", Reason: err.Error()}
	}
	r := &Result{SessionID: sid, Started: started, Ended: s.o.Now()}
	if out.OK {
		if jerr := s.j.Ended(keep, t, sid, out, r.Ended); jerr != nil {
			r.Outcome, r.Reason = Failed, "recording it done: "+jerr.Error()
			return r
		}
		s.o.Say(fmt.Sprintf("task %s: done (session %s)", t.ID, sid))
		r.Outcome = DoneNow
		return r
	}
	r.Outcome, r.Class, r.Reason = Failed, out.Class, out.Why()
	if jerr := s.j.Ended(keep, t, sid, out, r.Ended); jerr != nil {
		s.o.Say(fmt.Sprintf("task %s: recording its failure: %v", t.ID, jerr))
	}
	s.o.Say(fmt.Sprintf("task %s: failed (session %s): %s", t.ID, sid, r.Reason))
	return r
}
