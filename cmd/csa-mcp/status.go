package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/csa-dev/csa/internal/mcp/hub"
)

// exitNoHub: no hub answers on the socket (a state, not a usage error).
const exitNoHub = 3

// runStatus is `csa-mcp status`.
func runStatus(args []string) int {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	socket := fs.String("socket", "", "the hub's unix socket")
	asJSON := fs.Bool("json", false, "machine-readable output")
	if err := fs.Parse(args); err != nil || *socket == "" || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, usage)
		return 2
	}
	r, err := hub.AskStatus(*socket, 5*time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, "csa-mcp status:", err)
		if errors.Is(err, hub.ErrNoHub) {
			return exitNoHub
		}
		return 1
	}
	if *asJSON {
		if r.Backends == nil {
			r.Backends = []hub.BackendStatus{}
		}
		b, _ := json.MarshalIndent(r, "", "  ")
		fmt.Println(string(b))
		return 0
	}
	fmt.Printf("hub pid %d, up %v, %d clients\n", r.PID, time.Duration(r.Uptime*float64(time.Second)).Round(time.Second), r.Clients)
	if len(r.Backends) == 0 {
		fmt.Println("no backend yet")
		return 0
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
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
	return 0
}
