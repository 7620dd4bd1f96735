package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/session"
)

// killWithin bounds how long one remote kill waits for its worker and the
// recorded end, beyond the grace.
const killWithin = 10 * time.Second

func newKillCmd(e *env) *cobra.Command {
	var grace time.Duration
	cmd := &cobra.Command{
		Use:   "kill [--grace D] [--json] ID...",
		Short: "Kill remote sessions and their remote descendants, deepest first",
		RunE: func(c *cobra.Command, args []string) error {
			var g *time.Duration // nil: each worker's own grace
			if c.Flags().Changed("grace") {
				g = &grace
			}
			return runKill(c.Context(), e, g, args)
		},
	}
	cmd.Flags().Var(cmdutil.Duration(&grace, 0), "grace", "time between SIGTERM and SIGKILL (default: the worker's defaults.kill_grace)")
	return cmd
}

// runKill is `csa kill` for remote sessions: each session and its remote
// descendants, deepest first; on each worker the local kill stops the
// session's local descendants too. It prints what `csa kill` prints.
func runKill(ctx context.Context, e *env, g *time.Duration, args []string) error {
	if len(args) == 0 {
		return cmdutil.Usagef("give one or more session ids")
	}
	cfg, _, err := loadConfig()
	if err != nil {
		return err
	}
	c, err := open(ctx, cfg, "csa kill")
	if err != nil {
		return err
	}
	defer c.NC.Close()
	for _, id := range args {
		if _, _, err := c.Get(ctx, id); err != nil {
			return notFound(err)
		}
	}
	all, err := c.List(ctx)
	if err != nil {
		return err
	}
	targets := remoteDescendants(all, args)
	within := killWithin
	if g != nil {
		within += *g
	} else {
		within += 30 * time.Second // the worker's grace is not known here
	}
	var errs []error
	type entry struct {
		ID    string         `json:"id"`
		State session.Status `json:"state"`
	}
	out := []entry{}
	for _, id := range targets {
		r, err := c.Kill(ctx, id, g, e.now, within)
		if err != nil {
			errs = append(errs, err)
		}
		if r != nil {
			out = append(out, entry{ID: r.ID, State: r.Status})
		}
	}
	if e.json {
		if err := (&cmdutil.IOStreams{Out: e.out}).PrintJSON(out); err != nil {
			return err
		}
	} else {
		for _, en := range out {
			fmt.Fprintf(e.out, "%s\t%s\n", en.ID, en.State)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return &cmdutil.Error{Code: "kill_failed", Exit: cmdutil.ExitFailed, Err: err}
	}
	return nil
}

// remoteDescendants lists each id's remote descendants, deepest first,
// then the id. A remote run's children name as their parent either its
// cluster id or, started by the agent on its worker, its local session
// there.
func remoteDescendants(all []*cluster.Record, ids []string) []string {
	byParent := map[string][]string{}
	for _, r := range all {
		if r.ParentID != "" {
			byParent[r.ParentID] = append(byParent[r.ParentID], r.ID)
		}
	}
	byID := map[string]*cluster.Record{}
	for _, r := range all {
		byID[r.ID] = r
	}
	seen := map[string]bool{}
	var out []string
	var walk func(id string)
	walk = func(id string) {
		if seen[id] {
			return
		}
		seen[id] = true
		kids := byParent[id]
		if r := byID[id]; r != nil && r.Remote.LocalID != "" {
			kids = append(kids, byParent[r.Remote.LocalID]...)
		}
		for _, k := range kids {
			walk(k)
		}
		out = append(out, id)
	}
	for _, id := range ids {
		walk(id)
	}
	return out
}

// notFound gives an unknown remote id csa's not_found error (exit 2).
func notFound(err error) error {
	var nf *session.NotFoundError
	if errors.As(err, &nf) || errors.Is(err, cluster.ErrNotFound) {
		return &cmdutil.Error{Code: "not_found", Exit: cmdutil.ExitUsage, Err: err}
	}
	return err
}
