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

	"github.com/csa-dev/csa/internal/cli/shim"
	"github.com/csa-dev/csa/internal/mcp/server"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/resource"
)

const usage = `usage: csa-mcp server    csa as an MCP server on stdio (tools: run, list_sessions,
                        session_status, wait, send, read_log, kill, review)
       csa-mcp hub --socket PATH [--config FILE] [--idle-exit D] [--cache DIR]
                        the MCP hub in the foreground: the servers of csa's configuration
                        ([mcp.servers] of the global file and of each client's project), or
                        of FILE ([servers.NAME] tables), shared by every client of the unix
                        socket PATH; exits after D (default mcp.idle_exit; with --config,
                        never) with no client, on csa-mcp stop, SIGINT or SIGTERM; lazy
                        servers' tool lists kept in DIR (default: the state directory's mcp-known)
       csa-mcp connect --socket PATH [--only a,b] [--project DIR] [--scope DIR]
                        a stdio MCP server bridging to the hub on PATH (started if none answers),
                        seeing DIR's servers; project-scoped ones shared with the project of
                        --scope (default --project)
       csa-mcp status --socket PATH [--json]
                        the hub's clients and backends (state, pid, RSS, calls, queue, restarts);
                        exit 3 when no hub answers
       csa-mcp stop --socket PATH
                        stop the hub and its backends; exit 3 when no hub answers`

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	if len(args) > 0 && args[0] == resource.ShimCommand {
		// The hub starts servers with memory or pids limits through its
		// own executable, as csa starts agents through csa __exec.
		fmt.Fprintln(os.Stderr, "csa-mcp "+resource.ShimCommand+":", shim.Exec(args[1:]))
		return 127
	}
	if len(args) > 0 && args[0] == "hub" {
		return runHub(args[1:])
	}
	if len(args) > 0 && args[0] == "connect" {
		return runConnect(args[1:])
	}
	if len(args) > 0 && args[0] == "status" {
		return runStatus(args[1:])
	}
	if len(args) > 0 && args[0] == "stop" {
		return runStop(args[1:])
	}
	if len(args) != 1 || args[0] != "server" {
		fmt.Fprintln(os.Stderr, usage)
		return 2
	}
	csa, err := proc.Sibling("csa")
	if err != nil {
		fmt.Fprintln(os.Stderr, "csa-mcp:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := server.New(server.Exec(csa)).Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "csa-mcp:", err)
		return 1
	}
	return 0
}
