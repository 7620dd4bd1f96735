package takeback

import (
	"errors"
	"fmt"
	"strings"

	"github.com/csa-dev/csa/internal/session"
)

// Run is one task's run, as a batch, a todo plan or a workflow run
// recorded it: the changes csa merge --queue takes from such a source
// are its runs', in the order the source gives them.
type Run struct {
	Task      string // "task ID" or "step KEY": what a note calls it
	SessionID string // "" when no run of it is recorded
}

// Skipped is a run a queue leaves out, and why.
type Skipped struct {
	Run
	Why string
}

// StillRunningError: runs of the source have not ended. Nothing is
// merged then: a queue merged while its source still runs would leave
// out the changes to come, and the order the user asked for with them.
type StillRunningError struct{ Runs []Run }

func (e *StillRunningError) Error() string {
	names := make([]string, len(e.Runs))
	for i, r := range e.Runs {
		names[i] = fmt.Sprintf("%s (session %s)", r.Task, r.SessionID)
	}
	return "not ended yet: " + strings.Join(names, ", ") + "; merge once they end (csa wait ID...)"
}

// NoneError: no run of the source has a change to merge.
type NoneError struct{ Source string }

func (e *NoneError) Error() string {
	return e.Source + " has no run with a change to merge (its runs ran in the caller's work tree, failed, or never ran)"
}

// Gather is the changes to merge of runs, in their order: the runs that
// completed and recorded a change in a worktree of their own. A run that
// failed (or was killed, crashed, timed out) is left out, as is one that
// never ran, whose session is gone, or that ran in the caller's tree:
// each a Skipped with the reason (a failed run's change can still be
// merged by its id). A run not ended is a *StillRunningError, and load's
// other errors are returned. A session named twice is taken once.
func Gather(runs []Run, load func(id string) (*session.State, error)) ([]*Change, []Skipped, error) {
	var changes []*Change
	var skipped []Skipped
	var running []Run
	seen := map[string]bool{}
	for _, r := range runs {
		if r.SessionID == "" {
			skipped = append(skipped, Skipped{r, "no run of it is recorded"})
			continue
		}
		if seen[r.SessionID] {
			continue
		}
		seen[r.SessionID] = true
		st, err := load(r.SessionID)
		var nf *session.NotFoundError
		switch {
		case errors.As(err, &nf):
			skipped = append(skipped, Skipped{r, "its session no longer exists"})
			continue
		case err != nil:
			return nil, nil, fmt.Errorf("%s: %w", r.Task, err)
		case !st.Status.Ended():
			running = append(running, r)
			continue
		case st.Status != session.Completed:
			skipped = append(skipped, Skipped{r, fmt.Sprintf("it ended %s (csa merge %s takes its change anyway)", st.Status, r.SessionID)})
			continue
		}
		c, err := Of(st)
		var nc *NoChangeError
		if errors.As(err, &nc) {
			skipped = append(skipped, Skipped{r, nc.Why})
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		changes = append(changes, c)
	}
	if running != nil {
		return nil, nil, &StillRunningError{Runs: running}
	}
	return changes, skipped, nil
}
