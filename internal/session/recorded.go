package session

import "fmt"

// RecordedReason is why the session is in its recorded state, as its
// record says: what csa status shows of a headless session (local or
// remote), which no classifier watches. An ended run without a reason
// gives its exit.
func (st *State) RecordedReason() string {
	switch {
	case st.Reason != "":
		return st.Reason
	case st.Failure != nil && st.Failure.Message != "":
		return st.Failure.Message
	case st.Status == Pending:
		return "headless run not started yet"
	case st.Status == Running && st.PID > 0:
		return fmt.Sprintf("headless run in progress (pid %d)", st.PID)
	case st.Status == Running:
		return "headless run in progress"
	case st.Signal != "":
		return "ended on " + st.Signal
	case st.ExitCode != nil:
		return fmt.Sprintf("exited with status %d", *st.ExitCode)
	}
	return ""
}
