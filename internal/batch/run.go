package batch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/csa-dev/csa/internal/taskgraph"
)

// Options tune Run.
type Options struct {
	Say func(string) // progress, one line at a time
	Now func() time.Time
	// Parallel, when set, bounds this run instead of the batch's own.
	Parallel *int
}

// Run runs batch id with taskgraph's scheduler, its journal recording
// each run: tasks completed by an earlier csa batch of it are not run
// again, runs it started and that did not end are waited for, failed and
// blocked tasks run afresh. When ctx ends, nothing more starts; the runs
// started go on (csa batch resume waits for them).
func Run(ctx context.Context, s *Store, id string, a taskgraph.Agents, o Options) (*Summary, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	held, err := s.hold(id)
	if err != nil {
		return nil, err
	}
	defer held.Release()
	b, prog, err := s.load(id)
	if err != nil {
		return nil, err
	}
	j, err := openJournal(s.dir(id), o.Now)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	tasks := make([]*taskgraph.Task, len(b.Tasks))
	for i, t := range b.Tasks {
		gt := t.graphTask()
		if gt.Tool == "" && gt.Tier == "" {
			gt.Tool = b.Tool
		}
		if gt.Worktree == nil && b.Worktree {
			gt.Worktree = &b.Worktree
		}
		if gt.Isolate == "" {
			gt.Isolate = b.Isolate
		}
		gt.MaxCostUSD = b.MaxCostUSD
		if p := prog[t.ID]; p != nil && (p.Outcome == nil || p.Outcome.OK) {
			gt.Session, gt.Started, gt.Done = p.Session, p.Started, p.Outcome != nil
		}
		tasks[i] = gt
	}
	if o.Parallel != nil {
		b.Parallel = *o.Parallel
	}
	res := taskgraph.Run(ctx, tasks, a, j, taskgraph.Options{
		Parallel: b.Parallel, FailFast: b.FailFast, Who: "csa batch", Say: o.Say, Now: o.Now})
	for i := range res {
		if res[i].Outcome == taskgraph.DoneBefore {
			p := prog[res[i].ID]
			res[i].Started, res[i].Ended = p.Started, p.Ended
		}
	}
	sum := summarize(b, res)
	if ctx.Err() != nil {
		sum.State = Interrupted
	} else if err := j.finished(); err != nil {
		return sum, err
	}
	return sum, nil
}

// Sessions reads how a run ended from the session store.
type Sessions interface {
	// Ended tells whether session id has ended, how and when;
	// taskgraph.ErrNoSession when it no longer exists.
	Ended(id string) (o taskgraph.Outcome, at time.Time, ended bool, err error)
}

// Status is what batch id's journal says, and whether a csa batch runs it.
// A run the journal shows started but not ended is looked up in sessions:
// its csa batch may have been killed while the run went on to its end.
func Status(s *Store, id string, sessions Sessions) (*Summary, error) {
	b, prog, err := s.load(id)
	if err != nil {
		return nil, err
	}
	res := make([]taskgraph.Result, len(b.Tasks))
	why := map[string]string{} // a task not run -> the failed task that blocks it
	for i, t := range b.Tasks {
		r := taskgraph.Result{ID: t.ID, Outcome: taskgraph.NotRun}
		if p := prog[t.ID]; p != nil {
			r.SessionID, r.Started, r.Ended = p.Session, p.Started, p.Ended
			switch {
			case p.Outcome == nil:
				settle(&r, sessions)
			case p.Outcome.OK:
				r.Outcome = taskgraph.DoneBefore
			default:
				r.Outcome, r.Class, r.Reason = taskgraph.Failed, p.Outcome.Class, p.Outcome.Why()
			}
			if r.Outcome == taskgraph.Failed {
				why[t.ID] = t.ID
			}
		}
		res[i] = r
	}
	// A task not run that depends on a failed or blocked one is blocked.
	nodes := nodes(b.Tasks)
	for _, l := range taskgraph.Levels(nodes) {
		for _, i := range l {
			if res[i].Outcome != taskgraph.NotRun {
				continue
			}
			for _, d := range nodes[i].After {
				if f := why[d]; f != "" {
					res[i].Outcome, res[i].BlockedBy = taskgraph.Blocked, f
					why[nodes[i].ID] = f
					break
				}
			}
		}
	}
	sum := summarize(b, res)
	if s.running(id) {
		sum.State = Running
	}
	return sum, nil
}

// load reads batch id and what its journal says of each task.
func (s *Store) load(id string) (*Batch, map[string]*progress, error) {
	b, err := s.Get(id)
	if err != nil {
		return nil, nil, err
	}
	prog, err := replay(s.dir(id))
	return b, prog, err
}

// settle reports a run the journal left open as the session store has it:
// ended (completed or failed, with its reason), still running, or gone.
func settle(r *taskgraph.Result, sessions Sessions) {
	r.Outcome = taskgraph.Running
	if sessions == nil {
		return
	}
	o, at, ended, err := sessions.Ended(r.SessionID)
	switch {
	case errors.Is(err, taskgraph.ErrNoSession) && r.Started.IsZero():
		r.Outcome, r.Reason = taskgraph.NotRun, fmt.Sprintf("its session %s was recorded but never made (csa batch stopped as it launched it): csa batch resume starts it as that session", r.SessionID)
	case errors.Is(err, taskgraph.ErrNoSession):
		r.Outcome, r.Reason = taskgraph.NotRun, fmt.Sprintf("its session %s no longer exists: csa batch resume runs it again", r.SessionID)
	case err != nil:
		r.Reason = fmt.Sprintf("cannot read its session: %v", err)
	case !ended:
	case o.OK:
		r.Outcome, r.Ended = taskgraph.DoneBefore, at
	default:
		r.Outcome, r.Ended, r.Class, r.Reason = taskgraph.Failed, at, o.Class, o.Why()
	}
}
