package wait

import (
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/interactive"
	"github.com/csa-dev/csa/internal/session"
)

// outcome is where one session stands against its goal.
type outcome int

const (
	pending outcome = iota
	reached         // headless: ended completed; interactive: in the --until state or completed
	failed          // headless: ended otherwise; interactive: crashed, killed or stuck
)

// headless: a headless session's goal is to end completed.
func headless(s session.Status) outcome {
	switch {
	case s == session.Completed:
		return reached
	case s.Ended():
		return failed
	}
	return pending
}

// interactiveOutcome: an interactive session's goal is the state asked
// for; an agent that completed has reached any goal it could.
func interactiveOutcome(s, until interactive.State) outcome {
	switch {
	case s == until || s == interactive.Completed:
		return reached
	case s == interactive.Crashed || s == interactive.Killed || s == interactive.Stuck:
		return failed
	}
	return pending
}

// settle decides whether the wait is over, and its exit status: without
// any, once every session has reached its goal or failed (1 if one
// failed); with any, once one has (0 if one reached its goal).
func settle(outs []outcome, any bool) (done bool, exit int) {
	nReached, nFailed := 0, 0
	for _, o := range outs {
		switch o {
		case reached:
			nReached++
		case failed:
			nFailed++
		}
	}
	switch {
	case any && nReached > 0:
		return true, cmdutil.ExitOK
	case any && nFailed > 0:
		return true, cmdutil.ExitFailed
	case any, nReached+nFailed < len(outs):
		return false, 0
	case nFailed > 0:
		return true, cmdutil.ExitFailed
	}
	return true, cmdutil.ExitOK
}
