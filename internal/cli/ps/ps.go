// Package ps implements `csa ps`: list a project's sessions, as a table, a
// genealogy tree or JSON.
package ps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/clustercmd"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cost"
	"github.com/csa-dev/csa/internal/radar"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/session/psrow"
)

// Options are the flags of `csa ps`.
type Options struct {
	F    *cmdutil.Factory
	All  bool
	Tree bool
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "ps [--all] [--tree]",
		Short: "List sessions of this project (every project with --all)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return Run(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVarP(&o.All, "all", "a", false, "list the sessions of every project")
	cmd.Flags().BoolVar(&o.Tree, "tree", false, "draw the genealogy tree")
	return cmd
}

// Row is one session in the stable JSON listing.
type Row = psrow.Row

func newRow(st *session.Summary, now time.Time) *Row { return psrow.New(st, now) }

// Run lists the sessions.
func Run(ctx context.Context, o *Options) error {
	// A listing allocates a few megabytes and exits: collecting garbage
	// on the way would be most of its time.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	now := o.F.Now()
	// The cluster's sessions, when one is configured, are listed by
	// csa-cluster while csa reads the local ones.
	var remote *clustercmd.RemoteRows
	if _, ok := clustercmd.Configured(o.F); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		remote = clustercmd.StartRows(ctx, o.All, now)
	}
	states, overlaps, err := o.load(ctx)
	if err != nil {
		return err
	}
	rows := make([]*Row, len(states))
	for i, st := range states {
		rows[i] = newRow(st, now)
		rows[i].Overlaps = overlaps[st.ID]
	}
	addCosts(rows, states, o.F.PricesOrBuiltIn())
	// An unreachable cluster is a warning: the local sessions are still
	// listed.
	var raw [][]byte
	var aliases []string
	if remote != nil {
		if raw, aliases, err = remote.Wait(); err != nil {
			fmt.Fprintf(o.F.IO.ErrOut, "csa: %v\n", err)
			raw, aliases = nil, nil
		}
	}
	if o.F.JSON && !o.Tree {
		// The remote rows are listed as csa-cluster encoded them.
		return printJSON(o.F.IO.Out, rows, raw)
	}
	for i, b := range raw {
		var r Row
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("remote sessions: csa-cluster ps printed a broken row: %w", err)
		}
		r.Alias = aliases[i]
		rows = append(rows, &r)
	}
	if o.Tree {
		rows = tree(rows)
	}
	if o.F.JSON {
		return printJSON(o.F.IO.Out, rows, nil)
	}
	if len(rows) == 0 {
		// Say so, rather than a bare header or nothing at all.
		if o.All {
			fmt.Fprintln(o.F.IO.ErrOut, "no sessions in any project")
		} else {
			fmt.Fprintln(o.F.IO.ErrOut, "no sessions in this project (csa ps --all for every project)")
		}
		return nil
	}
	if o.Tree {
		printTree(o.F.IO.Out, rows, now)
		return nil
	}
	printTable(o.F.IO.Out, rows, now, o.All)
	return nil
}

// addCosts gives each row its session's cost and its tree's, from the
// usage recorded and the prices of today.
func addCosts(rows []*Row, states []*session.Summary, prices cost.Table) {
	priced := make([]cost.Priced, len(states))
	for i, st := range states {
		priced[i] = prices.PricedOf(st)
		rows[i].CostUSD = priced[i].USD
		rows[i].PriceUnknown = priced[i].USD == nil && priced[i].Used
	}
	trees := cost.Trees(priced)
	for _, r := range rows {
		tr := trees[r.ID]
		r.TreeCostUSD, r.TreeUnpriced = tr.USD, tr.Unpriced
	}
}

// load reads the sessions and settles the liveness of running ones; broken
// records are reported on stderr and skipped (csa gc removes them). It
// adds the overlaps of the live worktree runs (the radar).
func (o *Options) load(ctx context.Context) ([]*session.Summary, map[string][]radar.Overlap, error) {
	var stores []*session.Store
	if o.All {
		all, err := o.F.AllStores()
		if err != nil {
			return nil, nil, err
		}
		stores = all
	} else {
		s, _, err := o.F.CwdStore()
		if err != nil {
			return nil, nil, err
		}
		stores = append(stores, s)
	}
	var out []*session.Summary
	var overlaps map[string][]radar.Overlap
	broken := 0
	for _, s := range stores {
		ents, err := s.Summaries()
		if err != nil {
			return nil, nil, err
		}
		live := map[string]bool{}
		for _, e := range ents {
			if errors.Is(e.Err, session.ErrStarting) {
				continue
			}
			if e.Err != nil {
				broken++
				continue
			}
			sum := e.Summary
			if !sum.Status.Ended() {
				// Only a live session can have lost its supervisor.
				if st, err := s.Load(sum.ID); err == nil {
					st = runner.Reconcile(ctx, s, st, o.F.Now())
					v := st.Summarize()
					sum = &v
				}
			}
			if !sum.Status.Ended() && sum.Change != nil && !sum.Change.Recorded {
				live[sum.ID] = true
			}
			out = append(out, sum)
		}
		// Only live worktree runs have reports worth reading.
		if len(live) > 1 {
			found, _ := radar.Live(radar.Dir(s), func(id string) bool { return live[id] })
			for id, ovs := range found {
				if overlaps == nil {
					overlaps = map[string][]radar.Overlap{}
				}
				overlaps[id] = ovs
			}
		}
	}
	if broken > 0 {
		fmt.Fprintf(o.F.IO.ErrOut, "csa: %d session records could not be read (see `csa gc --dry-run`)\n", broken)
	}
	return out, overlaps, nil
}
