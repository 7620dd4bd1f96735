package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/mcp/hub"
)

// stopTimeout bounds the wait for a hub to stop: its backends get two
// seconds each (in parallel) to exit before they are killed.
const stopTimeout = 30 * time.Second

// stopCmd is `csa-mcp stop`: the hub stops its backends, removes its
// socket and exits; this returns once it has.
func stopCmd() *cobra.Command {
	var socket string
	cmd := &cobra.Command{
		Use:   "stop --socket PATH",
		Short: "Stop the hub and its backends; exit 3 when no hub answers",
		Args:  cmdutil.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := cmdutil.RequireFlag(c, "socket"); err != nil {
				return err
			}
			if err := hub.Stop(socket, stopTimeout); err != nil {
				return noHub(err)
			}
			fmt.Fprintln(c.OutOrStdout(), "MCP hub stopped")
			return nil
		},
	}
	cmd.Flags().StringVar(&socket, "socket", "", "the hub's unix socket")
	return cmd
}
