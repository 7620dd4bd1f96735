// Package wait implements `csa wait`: block until sessions reach their
// goal, headless and interactive alike, under csa's one exit-code table.
package wait

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/clustercmd"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cli/status"
	"github.com/csa-dev/csa/internal/interactive"
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
		Short: "Wait until sessions end or reach a state (exit 0 all did, 1 one failed, 124 timeout)",
		Long: `Wait until every session (with --any: one) has reached its goal or failed.

A headless session's goal is to end completed; it fails when it ends in any
other state. An interactive session's (csa run -i) goal is the state given
by --until (default completed; an agent that exits 0 also counts); it fails
when it is crashed, killed or stuck. Both kinds can be waited for together: --until
applies to the interactive ones.

Exit status, as for every csa command: 0 every session reached its goal
(--any: one did), 1 a session failed, 2 usage error, 124 the --timeout
passed, 130 interrupted.

States for --until: just_started, in_progress, waiting_input, completed,
crashed, killed, stuck, degraded.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.IDs = args
			return Run(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.Any, "any", false, "return as soon as one session has reached its goal or failed")
	cmd.Flags().Var(cmdutil.Duration(&o.Timeout, 0), "timeout", "give up after this long (0: wait forever)")
	cmd.Flags().StringVar(&o.Until, "until", "", "the state to wait for in interactive sessions (default completed)")
	return cmd
}

// Entry is one session in the answer. State is the recorded status of a
// headless session and the classified state of an interactive one.
type Entry struct {
	ID          string               `json:"id"`
	Tool        string               `json:"tool"`
	Interactive bool                 `json:"interactive"`
	State       string               `json:"state"`
	Reason      string               `json:"reason"`
	ExitCode    *int                 `json:"exit_code"`
	Failure     *session.Failure     `json:"failure"`
	Signals     *interactive.Signals `json:"signals"`
	// Worker is the cluster worker a remote session runs on.
	Worker string `json:"worker,omitempty"`

	outcome outcome
}

// Run checks the arguments, then polls the sessions until the wait is
// settled. Sessions whose supervisor died are settled as crashed on the
// way, so a wait never hangs on a dead run.
func Run(ctx context.Context, o *Options) error {
	if len(o.IDs) == 0 {
		return cmdutil.Usagef("give one or more session ids (see csa ps)")
	}
	until := interactive.Completed
	if o.Until != "" {
		st, err := interactive.ParseState(o.Until)
		if err != nil {
			return cmdutil.Usagef("--until: %w", err)
		}
		until = st
	}
	store, _, err := o.F.CwdStore()
	if err != nil {
		return err
	}
	local, remote, err := clustercmd.Split(o.F, store, o.IDs)
	if err != nil {
		return err
	}
	if len(local) == 0 {
		return o.waitRemote()
	}
	// The answer keeps the order of the arguments (Split keeps a remote
	// id as it was given, a local one resolved, each list in order).
	isRemote := map[string]bool{}
	for _, id := range remote {
		isRemote[id] = true
	}
	ids := make([]string, len(o.IDs))
	for i, li := 0, 0; i < len(o.IDs); i++ {
		if isRemote[o.IDs[i]] {
			ids[i] = o.IDs[i]
		} else {
			ids[i], li = local[li], li+1
		}
	}
	nIx := 0
	for _, id := range local {
		st, err := store.Load(id)
		if err != nil {
			return err
		}
		if st.Interactive != nil {
			nIx++
		}
	}
	if nIx == 0 && until != interactive.Completed {
		return cmdutil.Usagef("--until %s is for interactive sessions (csa run -i): headless sessions are waited for until they end", until)
	}
	w := &waiter{o: o, store: store, ids: ids, until: until, poll: o.Poll, isRemote: isRemote}
	if len(remote) > 0 {
		if w.remote, err = startRemoteWatch(ctx, remote); err != nil {
			return err
		}
		defer w.remote.stop()
	}
	if nIx > 0 {
		cfg, _, err := o.F.CwdConfig()
		if err != nil {
			return err
		}
		w.set = cmdutil.Classifier(&cfg.Config)
		w.poll = 4 * o.Poll // each look runs tmux and reads /proc
	}
	return w.run(ctx)
}

type waiter struct {
	o     *Options
	store *session.Store
	ids   []string
	until interactive.State
	set   interactive.Settings
	poll  time.Duration
	// remote follows the ids of isRemote, which this machine does not hold.
	remote   *remoteWatch
	isRemote map[string]bool
}

func (w *waiter) run(ctx context.Context) error {
	var deadline <-chan time.Time
	if w.o.Timeout > 0 {
		t := time.NewTimer(w.o.Timeout)
		defer t.Stop()
		deadline = t.C
	}
	for {
		entries, err := w.look(ctx)
		if err != nil {
			return err
		}
		outs := make([]outcome, len(entries))
		for i, e := range entries {
			outs[i] = e.outcome
		}
		if done, code := settle(outs, w.o.Any); done {
			return w.report(entries, code, "")
		}
		select {
		case <-deadline:
			return w.report(entries, cmdutil.ExitTimeout, "wait timed out")
		case <-ctx.Done():
			return w.report(entries, cmdutil.ExitInterrupted, "wait "+context.Cause(ctx).Error())
		case <-time.After(w.poll):
		}
	}
}

// look reads every session once: headless ones from their state, the
// interactive ones classified together.
func (w *waiter) look(ctx context.Context) ([]Entry, error) {
	entries := make([]Entry, len(w.ids))
	var ix []*session.State
	var ixAt []int
	for i, id := range w.ids {
		if w.isRemote[id] {
			e, err := w.remote.entry(id)
			if err != nil {
				return nil, err
			}
			entries[i] = e
			continue
		}
		st, err := w.o.F.Current(ctx, w.store, id)
		if err != nil {
			return nil, err
		}
		e := Entry{ID: id, Tool: st.Tool, ExitCode: st.ExitCode, Failure: st.Failure}
		if st.Interactive != nil {
			e.Interactive = true
			ix, ixAt = append(ix, st), append(ixAt, i)
		} else {
			e.State = string(st.Status)
			if st.Failure != nil {
				e.Reason = st.Failure.Message
			}
			e.outcome = headless(st.Status)
		}
		entries[i] = e
	}
	if len(ix) > 0 {
		for j, r := range status.Classify(ctx, w.o.F, w.store, ix, w.set) {
			e := &entries[ixAt[j]]
			// Classify may have read a later state (the session ended meanwhile).
			e.ExitCode, e.Failure = ix[j].ExitCode, ix[j].Failure
			sig := r.Signals
			e.State, e.Reason, e.Signals = string(r.State), r.Reason, &sig
			e.outcome = interactiveOutcome(r.State, w.until)
		}
	}
	return entries, nil
}

func (w *waiter) report(entries []Entry, code int, note string) error {
	f := w.o.F
	if f.JSON {
		if entries == nil {
			entries = []Entry{}
		}
		if err := f.IO.PrintJSON(map[string]any{
			"sessions":  entries,
			"until":     w.until,
			"timed_out": code == cmdutil.ExitTimeout,
		}); err != nil {
			return err
		}
	} else {
		for _, e := range entries {
			if e.Reason == "" {
				fmt.Fprintf(f.IO.Out, "%s\t%s\n", e.ID, e.State)
			} else {
				fmt.Fprintf(f.IO.Out, "%s\t%s\t%s\n", e.ID, e.State, e.Reason)
			}
		}
	}
	if note != "" {
		fmt.Fprintln(f.IO.ErrOut, "csa: "+note)
	}
	if code != cmdutil.ExitOK {
		return &cmdutil.Silent{Exit: code}
	}
	return nil
}

// waitRemote hands a wait for sessions this machine does not hold to
// csa-cluster, which waits for remote sessions (headless only) with the
// same answer and exit statuses. The ids must then be whole.
func (o *Options) waitRemote() error {
	if o.Until != "" && o.Until != string(interactive.Completed) {
		return cmdutil.Usagef("--until is for interactive sessions; remote sessions are waited for until they end")
	}
	args := []string{"wait"}
	if o.Any {
		args = append(args, "--any")
	}
	if o.Timeout > 0 {
		args = append(args, "--timeout", o.Timeout.String())
	}
	if o.F.JSON {
		args = append(args, "--json")
	}
	return clustercmd.HandOver(append(append(args, "--"), o.IDs...)...)
}
