// Command csa-mcp is csa's MCP side, a program of its own so that csa, paid
// on every run, links no MCP or HTTP code. `csa-mcp server` (what `csa
// mcp-server` runs) is csa as an MCP server on stdio; `csa-mcp hub` is the
// MCP hub daemon and `csa-mcp connect` an agent's stdio bridge to it.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cli/shim"
	"github.com/csa-dev/csa/internal/mcp/server"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/resource"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	if len(args) > 0 && args[0] == resource.ShimCommand {
		// The hub starts servers with memory or pids limits through its
		// own executable, as csa starts agents through csa __exec; the
		// arguments, which end with the server's, reach it untouched.
		fmt.Fprintln(os.Stderr, "csa-mcp "+resource.ShimCommand+":", shim.Exec(args[1:]))
		return 127
	}
	return cmdutil.RunProgram(context.Background(), newCmd(), args, cmdutil.System())
}

// newCmd builds csa-mcp's command tree.
func newCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "csa-mcp",
		Short: "csa's MCP side: csa as an MCP server, and the MCP hub every agent shares",
		Long: `csa-mcp is csa's MCP side, built and installed beside csa: csa mcp-server runs
csa-mcp server, and csa mcp (serve, status, stop, connect) runs the hub commands.`,
		Args: cmdutil.NoArgs,
		RunE: cmdutil.NeedsCommand,
	}
	cmd.AddCommand(serverCmd(), hubCmd(), connectCmd(), statusCmd(), stopCmd())
	return cmd
}

// serverCmd is `csa-mcp server`.
func serverCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "server",
		Short: "csa as an MCP server on stdio (tools: run, list_sessions, session_status, wait, send, read_log, kill, review)",
		Args:  cmdutil.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			csa, err := proc.Sibling("csa")
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := server.New(server.Exec(csa)).Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
				return err
			}
			return nil
		},
	}
}
