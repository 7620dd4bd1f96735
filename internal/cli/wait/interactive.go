package wait

import (
	"fmt"
	"time"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cli/status"
	"github.com/csa-dev/csa/internal/interactive"
	"github.com/csa-dev/csa/internal/session"
)

// Exit statuses of a wait on interactive sessions (the monitor contract):
// 0 the state was reached (or the agent completed), 2 crashed, stuck or
// timed out, 1 a usage error.
const (
	ixReached = 0
	ixUsage   = 1
	ixFailed  = 2
)

// ixUsageErr is a usage error under the interactive contract.
func ixUsageErr(format string, a ...any) error {
	return &cmdutil.Error{Code: "usage", Exit: ixUsage, Err: fmt.Errorf(format, a...)}
}

// waitInteractive polls the classifier until each session (or, with --any,
// one) reaches the state asked for.
func (o *Options) waitInteractive(store *session.Store, ids []string) error {
	until := interactive.Completed
	if o.Until != "" {
		st, err := interactive.ParseState(o.Until)
		if err != nil {
			return ixUsageErr("--until: %v", err)
		}
		until = st
	}
	cfg, _, err := o.F.CwdConfig()
	if err != nil {
		return err
	}
	set := cmdutil.Classifier(&cfg.Config)
	var deadline time.Time
	if o.Timeout > 0 {
		deadline = time.Now().Add(o.Timeout)
	}
	for {
		sessions, err := status.Load(o.F, store, ids)
		if err != nil {
			return &cmdutil.Error{Code: "usage", Exit: ixUsage, Err: err}
		}
		rows := status.Classify(o.F, store, sessions, set)
		reached, failed := 0, 0
		for _, r := range rows {
			switch {
			case r.State == until || r.State == interactive.Completed:
				reached++
			case r.State == interactive.Crashed || r.State == interactive.Stuck:
				failed++
			}
		}
		switch {
		case o.Any && reached > 0, reached == len(rows):
			return o.reportInteractive(rows, until, false, ixReached)
		case failed > 0 && (!o.Any || reached+failed == len(rows)):
			return o.reportInteractive(rows, until, false, ixFailed)
		case !deadline.IsZero() && time.Now().After(deadline):
			return o.reportInteractive(rows, until, true, ixFailed)
		}
		time.Sleep(4 * o.Poll) // each look runs tmux and reads /proc
	}
}

func (o *Options) reportInteractive(rows []status.Row, until interactive.State, timedOut bool, code int) error {
	if o.F.JSON {
		if err := o.F.IO.PrintJSON(map[string]any{"sessions": rows, "until": until, "timed_out": timedOut}); err != nil {
			return err
		}
	} else {
		for _, r := range rows {
			fmt.Fprintf(o.F.IO.Out, "%s\t%s\t%s\n", r.SessionID, r.State, r.Reason)
		}
		if timedOut {
			fmt.Fprintf(o.F.IO.ErrOut, "csa: wait timed out before %s\n", until)
		}
	}
	if code != 0 {
		return &cmdutil.Silent{Exit: code}
	}
	return nil
}
