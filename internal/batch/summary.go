package batch

import "github.com/csa-dev/csa/internal/taskgraph"

// A batch's state.
const (
	Running     = "running"     // a csa batch runs it
	Completed   = "completed"   // every task completed
	Failed      = "failed"      // a task failed or was blocked, nothing is left to run
	Interrupted = "interrupted" // its csa batch was interrupted; runs started may go on
	Stopped     = "stopped"     // tasks are left (killed, interrupted, or --fail-fast): csa batch resume
)

// Summary is a batch's tasks and totals.
type Summary struct {
	Batch  string       `json:"batch"`
	File   string       `json:"file"`
	State  string       `json:"state"`
	Tasks  []TaskReport `json:"tasks"`
	Totals Totals       `json:"totals"`
}

// TaskReport is one task: state is completed, failed, blocked, running
// (its run went on when the batch stopped) or not_run.
type TaskReport struct {
	ID           string `json:"id"`
	Name         string `json:"name,omitempty"`
	State        string `json:"state"`
	SessionID    string `json:"session_id,omitempty"`
	DurationMS   int64  `json:"duration_ms"`
	FailureClass string `json:"failure_class,omitempty"`
	Reason       string `json:"reason,omitempty"`
	BlockedBy    string `json:"blocked_by,omitempty"`
}

// Totals count the tasks by state.
type Totals struct {
	Tasks     int `json:"tasks"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	Blocked   int `json:"blocked"`
	Running   int `json:"running"`
	NotRun    int `json:"not_run"`
}

// summarize reports the scheduler's results (in b's task order).
func summarize(b *Batch, res []taskgraph.Result) *Summary {
	s := &Summary{Batch: b.ID, File: b.File}
	for i, r := range res {
		tr := TaskReport{ID: r.ID, Name: b.Tasks[i].Name, State: r.Outcome, SessionID: r.SessionID,
			FailureClass: r.Class, Reason: r.Reason, BlockedBy: r.BlockedBy}
		if !r.Started.IsZero() && !r.Ended.IsZero() {
			tr.DurationMS = r.Ended.Sub(r.Started).Milliseconds()
		}
		switch r.Outcome {
		case taskgraph.DoneNow, taskgraph.DoneBefore:
			tr.State = Completed
			s.Totals.Completed++
		case taskgraph.Failed:
			s.Totals.Failed++
		case taskgraph.Blocked:
			s.Totals.Blocked++
		case taskgraph.Running:
			s.Totals.Running++
		case taskgraph.NotRun:
			s.Totals.NotRun++
		}
		s.Tasks = append(s.Tasks, tr)
	}
	s.Totals.Tasks = len(res)
	switch t := s.Totals; {
	case t.Completed == t.Tasks:
		s.State = Completed
	case t.Running+t.NotRun == 0:
		s.State = Failed
	default:
		s.State = Stopped
	}
	return s
}

// OK reports whether every task completed.
func (s *Summary) OK() bool { return s.Totals.Completed == s.Totals.Tasks }
