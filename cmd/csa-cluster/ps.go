package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/session/psrow"
)

// psOptions are csa-cluster ps's flags.
type psOptions struct {
	all, rows bool
	nowNS     int64
}

func newPSCmd(e *env) *cobra.Command {
	var o psOptions
	cmd := &cobra.Command{
		Use:   "ps [--all] [--json | --rows [--now NS]]",
		Short: "Remote sessions' records; with --rows, their rows as csa ps lists them, one a line (csa ps runs this)",
		RunE: func(c *cobra.Command, args []string) error {
			return runPS(c.Context(), e, o, args)
		},
	}
	cmd.Flags().BoolVar(&o.all, "all", false, "every project's remote sessions")
	cmd.Flags().BoolVar(&o.rows, "rows", false, "csa ps's rows, one a line, with each remote session's id on its worker")
	cmd.Flags().Int64Var(&o.nowNS, "now", 0, "with --rows: the end of a running session's duration, in Unix nanoseconds (default: now)")
	return cmd
}

// runPS lists remote sessions: this project's, or every one with --all.
// --json prints their records; --rows prints them as `csa ps` lists them,
// one line each (psrow's line format), for csa to copy into its listing.
func runPS(ctx context.Context, e *env, o psOptions, args []string) error {
	if len(args) > 0 {
		return cmdutil.Usagef("csa-cluster ps [--all] [--json | --rows [--now NS]]")
	}
	// A listing allocates a few megabytes and exits: collecting garbage
	// on the way would be much of its time.
	debug.SetGCPercent(400)
	cfg, root, err := loadConfig()
	if err != nil {
		return err
	}
	c, err := open(ctx, cfg, "csa ps")
	if err != nil {
		return err
	}
	defer c.NC.Close()
	if o.rows {
		now := e.now()
		if o.nowNS != 0 {
			now = time.Unix(0, o.nowNS)
		}
		return psRows(ctx, e, c, root, o.all, now)
	}
	recs, err := c.List(ctx)
	if err != nil {
		return err
	}
	out := []*cluster.Record{}
	for _, r := range recs {
		if o.all || r.ProjectRoot == root {
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

// psRows prints the rows of `csa ps` for the remote sessions, by id, each
// record decoded only for the fields a row shows.
func psRows(ctx context.Context, e *env, c *cluster.Cluster, root string, all bool, now time.Time) error {
	ls, err := c.ListSummaries(ctx)
	if err != nil {
		return err
	}
	out := ls[:0]
	for _, l := range ls {
		if all || l.ProjectRoot == root {
			out = append(out, l)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	bw := bufio.NewWriterSize(e.out, 64*1024)
	var b []byte
	for i := range out {
		r := psrow.New(&out[i].Summary, now)
		r.Worker, r.Alias = out[i].Worker, out[i].LocalID
		b = r.AppendLine(b[:0])
		bw.Write(b)
	}
	return bw.Flush()
}
