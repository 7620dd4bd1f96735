// Package status implements `csa status`: what each interactive session is
// doing (just_started, in_progress, waiting_input, completed, crashed,
// killed, stuck, degraded), with the reason and the raw signals behind it;
// of a headless session, its recorded state and why.
package status

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/clustercmd"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/interactive"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/tmux"
)

// Options are the flags of `csa status`.
type Options struct {
	F   *cmdutil.Factory
	IDs []string
	All bool
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	o := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "status ID... | --all",
		Short: "What sessions are doing: state, reason (and signals, of interactive ones)",
		Long: `Classify interactive sessions (csa run -i): just_started, in_progress,
waiting_input, completed, crashed, killed, stuck or degraded, with a reason
and, with --json, the raw signals (pane, exit record, agent process tree,
heartbeat, turn hooks, output and CPU quiet time). A session csa stopped (csa
kill, rm --force, a signal to its pane wrapper) is killed, as in csa ps;
crashed is an agent that ended badly by itself or a pane that vanished.

A headless session (csa run, csa run -d) is given its recorded state (pending,
running, completed, failed, crashed, killed, timed_out) and why: its reason,
its failure, or its exit; --json gives it "interactive": false (true for the others), without signals.
A session this machine does not hold is looked up on the cluster ([cluster]
url): remote sessions are headless, their state is the recorded one, with the
worker they run on.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.IDs = args
			return Run(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.All, "all", false, "every interactive session of this project")
	return cmd
}

// Row is one session in the answer.
type Row struct {
	SessionID   string `json:"session_id"`
	Tool        string `json:"tool"`
	Interactive bool   `json:"interactive"`
	interactive.Verdict
}

// HeadlessRow is a headless session in the answer: no classifier
// watches one, its state is the recorded one (as of a remote session).
type HeadlessRow struct {
	SessionID string `json:"session_id"`
	Tool      string `json:"tool"`
	State     string `json:"state"`
	Reason    string `json:"reason"`
	// Interactive is false, as in csa wait's answer.
	Interactive bool `json:"interactive"`
}

// Run classifies and prints.
func Run(ctx context.Context, o *Options) error {
	if o.All == (len(o.IDs) > 0) {
		return cmdutil.Usagef("give session ids or --all")
	}
	cfg, root, err := o.F.CwdConfig()
	if err != nil {
		return err
	}
	store, err := o.F.Store(root)
	if err != nil {
		return err
	}
	ids := o.IDs
	var remote []string
	if o.All {
		if ids, err = InteractiveIDs(store); err != nil {
			return err
		}
	} else if ids, remote, err = clustercmd.Split(o.F, store, ids); err != nil {
		return err
	}
	if len(ids) == 0 && len(remote) > 0 {
		// Remote sessions only: csa-cluster answers from their records.
		return clustercmd.HandOver(remoteArgs(remote, o.F.JSON)...)
	}
	sessions, err := current(ctx, o.F, store, ids)
	if err != nil {
		return err
	}
	rows := classifyAll(ctx, o.F, store, sessions, cmdutil.Classifier(&cfg.Config))
	var rrows []json.RawMessage
	var rtext []byte
	if len(remote) > 0 {
		out, err := clustercmd.Call(ctx, remoteArgs(remote, o.F.JSON)...)
		if err != nil {
			return err
		}
		if o.F.JSON {
			var ans struct{ Sessions []json.RawMessage }
			if err := json.Unmarshal(out, &ans); err != nil {
				return fmt.Errorf("remote sessions: %w", err)
			}
			rrows = ans.Sessions
		}
		rtext = out
	}
	if o.F.JSON {
		all := make([]any, 0, len(rows)+len(rrows))
		all = append(all, rows...)
		for _, r := range rrows {
			all = append(all, r)
		}
		return o.F.IO.PrintJSON(map[string]any{"sessions": all})
	}
	w := o.F.IO.Out
	for _, r := range rows {
		switch r := r.(type) {
		case Row:
			fmt.Fprintf(w, "%s  %-11s  %-13s  %s\n", r.SessionID, r.Tool, r.State, r.Reason)
		case HeadlessRow:
			fmt.Fprintf(w, "%s  %-11s  %-13s  %s\n", r.SessionID, r.Tool, r.State, r.Reason)
		}
	}
	w.Write(rtext)
	return nil
}

// remoteArgs is csa-cluster's status of remote sessions (headless: their
// recorded state, reason and worker).
func remoteArgs(ids []string, asJSON bool) []string {
	args := []string{"state"}
	if asJSON {
		args = append(args, "--json")
	}
	return append(append(args, "--"), ids...)
}

// InteractiveIDs lists the store's interactive sessions, oldest first.
func InteractiveIDs(store *session.Store) ([]string, error) {
	return interactive.IndexedIDs(store.Root())
}

// current reads the sessions, settling any whose supervisor died.
func current(ctx context.Context, f *cmdutil.Factory, store *session.Store, ids []string) ([]*session.State, error) {
	out := make([]*session.State, len(ids))
	for i, id := range ids {
		st, err := f.Current(ctx, store, id)
		if err != nil {
			return nil, err
		}
		out[i] = st
	}
	return out, nil
}

// classifyAll is the answer for sessions, in their order: the interactive
// ones classified together (Classify), a headless one as recorded.
func classifyAll(ctx context.Context, f *cmdutil.Factory, store *session.Store, sessions []*session.State, set interactive.Settings) []any {
	var live []*session.State
	for _, st := range sessions {
		if st.Interactive != nil {
			live = append(live, st)
		}
	}
	classified := Classify(ctx, f, store, live, set)
	rows := make([]any, len(sessions))
	for i, st := range sessions {
		if st.Interactive != nil {
			rows[i], classified = classified[0], classified[1:]
			continue
		}
		rows[i] = HeadlessRow{SessionID: st.ID, Tool: st.Tool, State: string(st.Status), Reason: st.RecordedReason()}
	}
	return rows
}

// Classify observes the sessions together (one process-table read, one
// tmux call per server) and classifies each. A state that differs from the
// last one seen is written to the session's activity journal.
func Classify(ctx context.Context, f *cmdutil.Factory, store *session.Store, sessions []*session.State, set interactive.Settings) []Row {
	targets := make([]interactive.Target, len(sessions))
	for i, st := range sessions {
		// Load reconciled each session through its supervisor lock: one
		// not ended has a live wrapper (or is being handed to one).
		targets[i] = interactive.Target{Dir: store.Dir(st.ID), State: st, WrapperAlive: !st.Status.Ended(),
			Reload: func() (*session.State, error) { return store.Load(st.ID) }}
	}
	bin, _ := tmux.Find()
	ob := &interactive.Observer{TmuxBin: bin, Now: f.Now}
	obs := ob.Observe(ctx, targets)
	rows := make([]Row, len(sessions))
	for i, st := range sessions {
		v := interactive.Classify(obs[i], set)
		rows[i] = Row{SessionID: st.ID, Tool: st.Tool, Interactive: true, Verdict: v}
		interactive.NoteState(targets[i].Dir, v)
	}
	return rows
}
