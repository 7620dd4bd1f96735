package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/csa-dev/csa/internal/mcp/hub"
)

// stopTimeout bounds the wait for a hub to stop: its backends get two
// seconds each (in parallel) to exit before they are killed.
const stopTimeout = 30 * time.Second

// runStop is `csa-mcp stop`: the hub stops its backends, removes its
// socket and exits; this returns once it has.
func runStop(args []string) int {
	fs := flag.NewFlagSet("stop", flag.ContinueOnError)
	socket := fs.String("socket", "", "the hub's unix socket")
	if err := fs.Parse(args); err != nil || *socket == "" || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, usage)
		return 2
	}
	err := hub.Stop(*socket, stopTimeout)
	switch {
	case errors.Is(err, hub.ErrNoHub):
		fmt.Fprintln(os.Stderr, "csa-mcp stop:", err)
		return exitNoHub
	case err != nil:
		fmt.Fprintln(os.Stderr, "csa-mcp stop:", err)
		return 1
	}
	fmt.Println("MCP hub stopped")
	return 0
}
