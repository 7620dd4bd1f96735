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
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	o := &Options{F: f, Poll: 50 * time.Millisecond}
	cmd := &cobra.Command{
		Use:   "wait ID... [--any] [--timeout DUR]",
		Short: "Wait until sessions end (exit 0 all succeeded, 1 one failed, 124 timeout)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			o.IDs = args
			return Run(o)
		},
	}
	cmd.Flags().BoolVar(&o.Any, "any", false, "return as soon as one session has ended")
	cmd.Flags().DurationVar(&o.Timeout, "timeout", 0, "give up after this long (0: wait forever)")
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
		return err
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
