// Package wait implements `csa wait`: block until sessions end.
package wait

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/session"
)

// Options are the flags of `csa wait`.
type Options struct {
	F       *cmdutil.Factory
	IDs     []string
	Any     bool
	Timeout time.Duration
	Poll    time.Duration
	// Until is the state interactive sessions are waited for.
	Until string
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	o := &Options{F: f, Poll: 50 * time.Millisecond}
	cmd := &cobra.Command{
		Use:   "wait ID... [--any] [--timeout DUR] [--until STATE]",
		Short: "Wait until sessions end (exit 0 all succeeded, 1 one failed, 124 timeout)",
		Long: `Wait until sessions end: exit 0 when all succeeded, 1 when one failed, 124 on timeout.

Interactive sessions (csa run -i), or any wait with --until, follow the
monitor contract instead: wait until each session's classified state is
STATE (default completed; an agent that completes also counts), exit 0 when
reached, 2 when a session is crashed or stuck or the timeout passes, 1 on a
usage error. States: just_started, in_progress, waiting_input, completed,
crashed, stuck, degraded.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			o.IDs = args
			return Run(o)
		},
	}
	cmd.Flags().BoolVar(&o.Any, "any", false, "return as soon as one session has ended")
	cmd.Flags().DurationVar(&o.Timeout, "timeout", 0, "give up after this long (0: wait forever)")
	cmd.Flags().StringVar(&o.Until, "until", "", "for interactive sessions: the state to wait for (default completed)")
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if c.Flags().Changed("until") {
			return ixUsageErr("%v (see `csa wait --help`)", err)
		}
		return cmdutil.Usagef("%v (see `csa wait --help`)", err)
	})
	return cmd
}

// Entry is one session in the JSON answer.
type Entry struct {
	ID       string           `json:"id"`
	State    session.Status   `json:"state"`
	ExitCode *int             `json:"exit_code"`
	Failure  *session.Failure `json:"failure"`
}

// Run polls the state files; sessions whose supervisor died are settled as
// crashed on the way, so a wait never hangs on a dead run.
func Run(o *Options) error {
	store, _, err := o.F.CwdStore()
	if err != nil {
		return err
	}
	ids, err := cmdutil.ResolveAll(store, o.IDs)
	if err != nil {
		if o.Until != "" {
			return &cmdutil.Error{Code: "usage", Exit: ixUsage, Err: err}
		}
		return err
	}
	if ix, err := o.interactiveWait(store, ids); err != nil || ix {
		if err != nil {
			return err
		}
		return o.waitInteractive(store, ids)
	}
	var deadline <-chan time.Time
	if o.Timeout > 0 {
		t := time.NewTimer(o.Timeout)
		defer t.Stop()
		deadline = t.C
	}
	for {
		entries, ended, err := o.poll(store, ids)
		if err != nil {
			return err
		}
		if ended == len(ids) || (o.Any && ended > 0) {
			return o.report(entries, false)
		}
		select {
		case <-deadline:
			return o.report(entries, true)
		case <-time.After(o.Poll):
		}
	}
}

func (o *Options) poll(store *session.Store, ids []string) ([]Entry, int, error) {
	entries := make([]Entry, len(ids))
	ended := 0
	for i, id := range ids {
		st, err := o.F.Current(store, id)
		if err != nil {
			return nil, 0, err
		}
		entries[i] = Entry{ID: id, State: st.Status, ExitCode: st.ExitCode, Failure: st.Failure}
		if st.Status.Ended() {
			ended++
		}
	}
	return entries, ended, nil
}

func (o *Options) report(entries []Entry, timedOut bool) error {
	code := cmdutil.ExitOK
	for _, e := range entries {
		if e.State.Ended() && e.State != session.Completed {
			code = cmdutil.ExitFailed
		}
	}
	if timedOut {
		code = cmdutil.ExitTimeout
	}
	if o.F.JSON {
		if err := o.F.IO.PrintJSON(map[string]any{"sessions": entries, "timed_out": timedOut}); err != nil {
			return err
		}
	} else {
		for _, e := range entries {
			fmt.Fprintf(o.F.IO.Out, "%s\t%s\n", e.ID, e.State)
		}
		if timedOut {
			fmt.Fprintln(o.F.IO.ErrOut, "csa: wait timed out")
		}
	}
	if code != cmdutil.ExitOK {
		return &cmdutil.Silent{Exit: code}
	}
	return nil
}

// interactiveWait decides the contract: --until, or every session
// interactive. Mixing interactive and headless sessions is refused.
func (o *Options) interactiveWait(store *session.Store, ids []string) (bool, error) {
	n := 0
	for _, id := range ids {
		st, err := store.Load(id)
		if err != nil {
			return false, err
		}
		if st.Interactive != nil {
			n++
		}
	}
	switch {
	case n == 0 && o.Until != "":
		return false, ixUsageErr("--until is for interactive sessions (csa run -i)")
	case n > 0 && n < len(ids):
		return false, cmdutil.Usagef("cannot wait for interactive and headless sessions together: their exit statuses differ")
	}
	return n > 0, nil
}
