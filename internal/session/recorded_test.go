package session

import "testing"

func TestRecordedReason(t *testing.T) {
	zero, two := 0, 2
	for _, c := range []struct {
		st   State
		want string
	}{
		{State{Status: Pending}, "headless run not started yet"},
		{State{Status: Running, PID: 42}, "headless run in progress (pid 42)"},
		{State{Status: Running}, "headless run in progress"},
		{State{Status: Completed, ExitCode: &zero}, "exited with status 0"},
		{State{Status: Failed, ExitCode: &two}, "exited with status 2"},
		{State{Status: Failed, ExitCode: &two, Failure: &Failure{Class: FailCrashed, Message: "agent said no"}}, "agent said no"},
		{State{Status: Killed, Signal: "SIGTERM", Reason: "csa kill"}, "csa kill"},
		{State{Status: Killed, Signal: "SIGKILL"}, "ended on SIGKILL"},
	} {
		if got := c.st.RecordedReason(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.st, got, c.want)
		}
	}
}
