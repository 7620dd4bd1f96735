package workflow

import (
	"fmt"
	"io"
	"time"
)

// Status is where a run stands, read from its journal: the shape of
// `csa workflow status --json` and of `run --json` at the end.
type Status struct {
	RunID     string    `json:"run_id"`
	Name      string    `json:"name"`
	File      string    `json:"file"`
	Dir       string    `json:"dir"`
	CreatedAt time.Time `json:"created_at"`
	State     string    `json:"state"`
	Failure   *Failure  `json:"failure,omitempty"`
	Steps     []*Result `json:"steps"`
}

// Status reads a run's state: finished steps with their results, the step
// in flight, and the run's own end (running while a csa holds its lock,
// interrupted when none does and it has not ended).
func (s *Store) Status(id string) (*Status, error) {
	info, err := s.Info(id)
	if err != nil {
		return nil, err
	}
	recs, err := s.Records(id)
	if err != nil {
		return nil, err
	}
	st := &Status{RunID: id, Name: info.Plan.Name, File: info.Plan.File, Dir: info.Dir, CreatedAt: info.CreatedAt, Steps: []*Result{}}
	at := map[string]int{}
	put := func(res *Result) {
		if i, ok := at[res.Key]; ok {
			st.Steps[i] = res
			return
		}
		at[res.Key] = len(st.Steps)
		st.Steps = append(st.Steps, res)
	}
	for _, rec := range recs {
		switch rec.Type {
		case RecRunStarted, RecRunResumed:
			st.State, st.Failure = "", nil
		case RecRunFinished:
			st.State, st.Failure = rec.Status, rec.Failure
		case RecStepStarted:
			put(&Result{Key: rec.Key, Status: StepRunning, Tool: rec.Tool, Attempts: rec.Attempt, SessionID: rec.SessionID})
		case RecStepSession:
			if i, ok := at[rec.Key]; ok {
				st.Steps[i].SessionID = rec.SessionID
			}
		case RecStepFinished:
			put(rec.Result)
		}
	}
	if st.State == "" {
		st.State = RunInterrupted
		if s.Running(id) {
			st.State = RunRunning
		}
	}
	for _, r := range st.Steps {
		if r.Status == StepRunning && st.State != RunRunning {
			r.Status = RunInterrupted
		}
	}
	return st, nil
}

// Render writes the status readably.
func (st *Status) Render(w io.Writer) {
	fmt.Fprintf(w, "workflow %s %s: %s\n", st.RunID, st.Name, st.State)
	for _, r := range st.Steps {
		fmt.Fprintf(w, "  step %-6s %-11s", r.Key, r.Status)
		if r.Title != "" {
			fmt.Fprintf(w, " '%s'", r.Title)
		}
		if r.Tool != "" {
			fmt.Fprintf(w, " %s", r.Tool)
		}
		if r.SessionID != "" {
			fmt.Fprintf(w, " session %s", r.SessionID)
		}
		if r.ExitCode != nil {
			fmt.Fprintf(w, " exit %d", *r.ExitCode)
		}
		if r.Verdict != "" {
			fmt.Fprintf(w, " verdict %s", r.Verdict)
		}
		fmt.Fprintln(w)
	}
	if st.Failure != nil {
		fmt.Fprintf(w, "failed: %s\n", st.Failure)
	}
}
