package todo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/csa-dev/csa/internal/lock"
	"github.com/csa-dev/csa/internal/taskgraph"
)

// ErrNotApproved refuses to run a draft plan.
var ErrNotApproved = errors.New("plan is a draft")

// ErrBusy refuses a second `todo run` of a plan that one is running.
var ErrBusy = errors.New("plan is being run")

// TaskResult is one task in a run's summary; Outcome is one of
// taskgraph's (done_before, done, failed, blocked, running, not_run).
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

// Run runs the tasks of plan id that are not done as sub-agent runs with
// taskgraph's scheduler, the plan being its journal: each run's session
// is recorded in the plan before it is waited for, each task that
// completes is marked done, one that fails loses its session line (the
// next run starts it afresh), every change a commit. The plan becomes
// implementing, and done once every task is.
func Run(ctx context.Context, s *Store, id string, a taskgraph.Agents, o RunOptions) (*Summary, error) {
	held, err := s.runLock(id)
	if err != nil {
		return nil, err
	}
	defer held.Release()
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
	res := taskgraph.Run(ctx, graphTasks(p), a, &planJournal{s: s, id: id},
		taskgraph.Options{Parallel: max(o.Parallel, 1), Who: "csa todo run", Say: say})
	sum := &Summary{Plan: id, Status: p.Status, Interrupted: ctx.Err() != nil}
	for i, r := range res {
		switch r.Outcome {
		case taskgraph.Failed:
			sum.Failed++
		case taskgraph.Blocked:
			sum.Blocked++
		}
		sum.Tasks = append(sum.Tasks, TaskResult{ID: r.ID, Title: p.Tasks[i].Title, Outcome: r.Outcome,
			SessionID: r.SessionID, Reason: r.Reason, BlockedBy: r.BlockedBy})
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

// graphTasks are the plan's tasks as the scheduler runs them.
func graphTasks(p *Plan) []*taskgraph.Task {
	ns := nodes(p)
	out := make([]*taskgraph.Task, len(p.Tasks))
	for i, t := range p.Tasks {
		out[i] = &taskgraph.Task{Node: ns[i], Spec: taskgraph.Spec{Prompt: t.PromptText(), Tool: t.Tool, Tier: t.Tier, Worktree: t.Worktree, Isolate: t.Isolate},
			Done: t.Done, Session: t.Session}
	}
	return out
}

// planJournal records a run's progress in the plan, a commit each.
type planJournal struct {
	s  *Store
	id string
}

// Starting names the task's session in the plan before it is launched
// (a commit): a todo run killed before it records the run started leaves
// no run unknown (the next one launches that id again, or waits for it).
func (j *planJournal) Starting(ctx context.Context, t *taskgraph.Task, sid string, _ time.Time) error {
	_, err := j.s.Update(ctx, j.id, func(p *Plan) (string, error) {
		if pt := p.Task(t.ID); pt != nil {
			pt.Session = sid
		}
		return fmt.Sprintf("task %s starting (session %s)", t.ID, sid), nil
	})
	return err
}

// Started records nothing more: the plan has named the session since
// Starting, and a launch that made it is found by the next run's launch.
func (j *planJournal) Started(context.Context, *taskgraph.Task, string, time.Time) error { return nil }

func (j *planJournal) Ended(ctx context.Context, t *taskgraph.Task, sid string, o taskgraph.Outcome, _ time.Time) error {
	_, err := j.s.Update(ctx, j.id, func(p *Plan) (string, error) {
		pt := p.Task(t.ID)
		if o.OK {
			if pt != nil {
				pt.Done = true
			}
			return fmt.Sprintf("task %s done (session %s)", t.ID, sid), nil
		}
		// The session line goes: the next `todo run` starts the task
		// afresh; the history keeps which session failed and why.
		if pt != nil && pt.Session == sid {
			pt.Session = ""
		}
		return fmt.Sprintf("task %s failed (session %s): %s", t.ID, sid, o.Why()), nil
	})
	return err
}

// runLock is held by the one `todo run` of plan id; the kernel lets go of
// it when that dies (a dead holder's lock is not refused: lock.Owned).
func (s *Store) runLock(id string) (*lock.Owned, error) {
	if err := mkdirParent(s.Dir); err != nil {
		return nil, err
	}
	l, err := lock.TakeOwned(s.Dir + "." + id + ".run.lock")
	if errors.Is(err, lock.ErrOwned) {
		return nil, fmt.Errorf("%w by another csa todo run", ErrBusy)
	}
	return l, err
}
