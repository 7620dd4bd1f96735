package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"text/tabwriter"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cluster"
)

// runPS lists remote sessions: this project's, or every one with --all.
// `csa ps` runs it (with --json) and shows its rows beside the local ones.
func runPS(ctx context.Context, e *env, args []string) error {
	fs := flags("ps")
	all := fs.Bool("all", false, "every project's remote sessions")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cmdutil.Usagef("csa-cluster ps [--all] [--json]")
	}
	cfg, root, err := loadConfig()
	if err != nil {
		return err
	}
	c, err := open(ctx, cfg, "csa ps")
	if err != nil {
		return err
	}
	defer c.NC.Close()
	recs, err := c.List(ctx)
	if err != nil {
		return err
	}
	out := []*cluster.Record{}
	for _, r := range recs {
		if *all || r.ProjectRoot == root {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	if e.json {
		return json.NewEncoder(e.out).Encode(out)
	}
	tw := tabwriter.NewWriter(e.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTOOL\tSTATE\tWORKER\tREASON")
	for _, r := range out {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Tool, r.Status, r.Remote.Worker, r.Reason)
	}
	return tw.Flush()
}
