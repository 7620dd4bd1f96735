// Package mcpcmd is `csa mcp-server`: csa as an MCP server on stdio. The
// server is csa-mcp, a program built and installed beside csa, so that csa
// itself links no MCP or HTTP code; this command hands it its streams.
package mcpcmd

import (
	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/proc"
)

// Program is the MCP program built with csa.
const Program = "csa-mcp"

// NewCmd builds `csa mcp-server`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp-server",
		Short: "Serve csa's tools over MCP on stdio (run, list_sessions, session_status, wait, send, read_log, kill, review)",
		Long: `Serve csa's tools over the Model Context Protocol on stdio: an agent program
configured with "csa mcp-server" as an MCP server can run sub-agents (waiting for
the result or not), list, inspect, wait for, read and kill sessions, and ask for a
review. A call made from inside a csa session makes a child of that session.
The server is csa-mcp, built and installed beside csa (make build, make install).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return proc.Program(Program).Become("server")
		},
	}
}
