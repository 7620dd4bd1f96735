package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
)

func newStatusCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "status [--json]",
		Short: "Workers, queue, servers and streams",
		RunE: func(c *cobra.Command, args []string) error {
			return runStatus(c.Context(), e, args)
		},
	}
}

// runStatus is `csa cluster status`.
func runStatus(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 {
		return cmdutil.Usagef("csa cluster status [--json]")
	}
	cfg, _, err := loadConfig()
	if err != nil {
		return err
	}
	c, err := open(ctx, cfg, "csa cluster status")
	if err != nil {
		return err
	}
	defer c.NC.Close()
	s, err := c.Status(ctx)
	if err != nil {
		return err
	}
	if e.json {
		return json.NewEncoder(e.out).Encode(s)
	}
	fmt.Fprintf(e.out, "server   %s (%s", s.Server.Connected, s.Server.Name)
	if s.Server.Cluster != "" {
		fmt.Fprintf(e.out, ", cluster %s", s.Server.Cluster)
	}
	fmt.Fprintf(e.out, "); known: %s\n", strings.Join(s.Server.Known, " "))
	fmt.Fprintf(e.out, "queue    %d waiting, %d being delivered\n\n", s.Queue.Waiting, s.Queue.Delivering)
	tw := tabwriter.NewWriter(e.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKER\tHOST\tLABELS\tRUNNING\tLAST HEARTBEAT")
	for _, w := range s.Workers {
		var ls []string
		for k, v := range w.Labels {
			ls = append(ls, k+"="+v)
		}
		sort.Strings(ls)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\n", w.ID, w.Host, strings.Join(ls, ","), len(w.Running), w.MaxConcurrent,
			w.LastHeartbeat.Local().Format("15:04:05"))
	}
	if len(s.Workers) == 0 {
		fmt.Fprintln(tw, "(no worker)")
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "STREAM\tMESSAGES\tLEADER\tREPLICAS")
	for _, st := range s.Streams {
		var rs []string
		for _, r := range st.Replicas {
			h := "current"
			switch {
			case r.Offline:
				h = "offline"
			case !r.Current:
				h = fmt.Sprintf("lag %d", r.Lag)
			}
			rs = append(rs, r.Name+" "+h)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", st.Name, st.Messages, st.Leader, strings.Join(rs, ", "))
	}
	return tw.Flush()
}
