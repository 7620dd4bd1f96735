package batch

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/csa-dev/csa/internal/batch"
)

// report writes the summary as a table: one line per task, then totals.
func report(w io.Writer, s *batch.Summary) error {
	t := s.Totals
	fmt.Fprintf(w, "batch %s: %s (%d tasks: %d completed, %d failed, %d blocked, %d running, %d not run)\n",
		s.Batch, s.State, t.Tasks, t.Completed, t.Failed, t.Blocked, t.Running, t.NotRun)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tSTATE\tSESSION\tDURATION\tFAILURE")
	for _, r := range s.Tasks {
		dur := "-"
		if r.DurationMS > 0 || r.State == batch.Completed {
			dur = (time.Duration(r.DurationMS) * time.Millisecond).Round(100 * time.Millisecond).String()
		}
		why := r.Reason
		switch {
		case r.BlockedBy != "":
			why = "blocked: " + r.BlockedBy + " failed"
		case r.FailureClass != "":
			why = r.FailureClass + ": " + r.Reason
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.State, orDash(r.SessionID), dur, orDash(why))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
