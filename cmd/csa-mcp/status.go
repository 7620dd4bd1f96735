package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/mcp/hub"
)

// exitNoHub: no hub answers on the socket (a state, not a usage error).
const exitNoHub = 3

// noHub gives err, when it says no hub answers, its exit status.
func noHub(err error) error {
	if errors.Is(err, hub.ErrNoHub) {
		return &cmdutil.Error{Code: "no_hub", Exit: exitNoHub, Err: err}
	}
	return err
}

// statusCmd is `csa-mcp status`.
func statusCmd() *cobra.Command {
	var socket string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status --socket PATH [--json]",
		Short: "The hub's clients and backends (state, pid, RSS, calls, queue, restarts); exit 3 when no hub answers",
		Args:  cmdutil.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := cmdutil.RequireFlag(c, "socket"); err != nil {
				return err
			}
			r, err := hub.AskStatus(socket, 5*time.Second)
			if err != nil {
				return noHub(err)
			}
			if asJSON {
				if r.Backends == nil {
					r.Backends = []hub.BackendStatus{}
				}
				b, _ := json.MarshalIndent(r, "", "  ")
				fmt.Fprintln(c.OutOrStdout(), string(b))
				return nil
			}
			printStatus(c.OutOrStdout(), r)
			return nil
		},
	}
	cmd.Flags().StringVar(&socket, "socket", "", "the hub's unix socket")
	cmd.Flags().BoolVar(&asJSON, "json", false, "machine-readable output")
	return cmd
}

// printStatus writes the hub's status as a table of its backends.
func printStatus(w io.Writer, r *hub.Report) {
	fmt.Fprintf(w, "hub pid %d, up %v, %d clients\n", r.PID, time.Duration(r.Uptime*float64(time.Second)).Round(time.Second), r.Clients)
	if len(r.Backends) == 0 {
		fmt.Fprintln(w, "no backend yet")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tTRANSPORT\tPROJECT\tSTATE\tPID\tRSS\tCLIENTS\tIN FLIGHT\tQUEUED\tCALLS\tERRORS\tRESTARTS")
	for _, b := range r.Backends {
		proj := b.Project
		if proj == "" {
			proj = "(shared)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%.1f MB\t%d\t%d\t%d\t%d\t%d\t%d\n", b.Name, b.Transport, proj, b.State, b.PID,
			float64(b.RSS)/(1<<20), b.Clients, b.InFlight, b.Queued, b.Calls, b.Errors, b.Restarts)
	}
	tw.Flush()
}
