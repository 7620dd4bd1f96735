package mcpcmd

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/mcp/link"
	"github.com/csa-dev/csa/internal/proc"
)

// ExitNoHub is the exit status of status, stop and logs when there is no
// hub (csa-mcp's own, passed through).
const ExitNoHub = 3

// NewHubCmd builds `csa mcp`: the per-user MCP hub. The hub is csa-mcp; the
// subcommands hand over to it, except where csa does the work itself
// (starting it in the background, its log).
func NewHubCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "The MCP hub every agent shares: serve, status, stop, logs, connect",
		Long: `The MCP hub: one process per user that runs each MCP server of csa's configuration
([mcp.servers.NAME], global and per project) once, shared by every agent, on a unix
socket in csa's private runtime directory. A run that needs it starts it; it exits
after mcp.idle_exit (default 10m) with no client. Its log (its own lines and its
servers' stderr) is mcp-hub.log in csa's state directory.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(serveCmd(f), statusCmd(f), stopCmd(f), logsCmd(f), connectCmd(f))
	return cmd
}

// hub is where the hub listens and the csa-mcp that runs it.
func hub(f *cmdutil.Factory) (socket, exe string, err error) {
	if socket, err = link.Socket(f.Getenv); err != nil {
		return "", "", err
	}
	exe, err = proc.Sibling(Program)
	return socket, exe, err
}

// handOver runs csa-mcp with args in place of csa.
func handOver(args ...string) error {
	return cmdutil.HandOver(proc.Program(Program), "csa mcp", args...)
}

func serveCmd(f *cmdutil.Factory) *cobra.Command {
	var foreground bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Start the MCP hub (in the background unless --foreground); running already is fine",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			socket, exe, err := hub(f)
			if err != nil {
				return err
			}
			if link.Answers(socket) {
				return serveSays(f, socket, true)
			}
			// The hub serves even with a bad file (its clients are told
			// why they are refused); started by hand, say so at once.
			if _, err := config.LoadFiles(config.GlobalPath(), ""); err != nil {
				return err
			}
			if foreground {
				return handOver("hub", "--socket", socket)
			}
			if err := link.Ensure(cmd.Context(), exe, socket, f.Getenv); err != nil {
				return err
			}
			return serveSays(f, socket, false)
		},
	}
	cmd.Flags().BoolVar(&foreground, "foreground", false, "run the hub in this terminal (its log on stderr) until SIGINT")
	return cmd
}

func serveSays(f *cmdutil.Factory, socket string, already bool) error {
	log := link.LogFile(f.Getenv)
	if f.JSON {
		return json.NewEncoder(f.IO.Out).Encode(map[string]any{"socket": socket, "log": log, "already_running": already})
	}
	if already {
		fmt.Fprintf(f.IO.Out, "MCP hub already running on %s (log %s)\n", socket, log)
	} else {
		fmt.Fprintf(f.IO.Out, "MCP hub listening on %s (log %s)\n", socket, log)
	}
	return nil
}

func statusCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "The hub and each MCP server: state, pid, clients, queue, calls, errors, restarts, memory (exit 3: no hub)",
		Long: `Show the hub (pid, uptime, clients) and each of its backends: server, project (for
a project-scoped server), state (running, starting, backoff, stopped), pid, RSS, the
clients that see it, calls in flight and queued, calls, errors and restarts.
--json prints the same as one object: pid, started_at, uptime_seconds, clients and
backends, each with name, project, definition, state, pid, rss_bytes, clients,
in_flight, queued, calls, errors and restarts. Exit status 3 when no hub runs.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			socket, _, err := hub(f)
			if err != nil {
				return err
			}
			args := []string{"status", "--socket", socket}
			if f.JSON {
				args = append(args, "--json")
			}
			return handOver(args...)
		},
	}
}

func stopCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "stop",
		Short: "Stop the hub and its MCP servers, and wait until they have exited (exit 3: no hub)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			socket, _, err := hub(f)
			if err != nil {
				return err
			}
			return handOver("stop", "--socket", socket)
		},
	}
}

func connectCmd(f *cmdutil.Factory) *cobra.Command {
	var only []string
	var projectDir string
	cmd := &cobra.Command{
		Use:   "connect",
		Short: "A stdio MCP server bridging to the hub (starting it if need be): what agents are given",
		Long: `Serve MCP on stdio by bridging to the hub, started first if none answers. The
agent sees the servers of csa's configuration for the project (--project, default
the project of the current directory), or those named with --only.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			socket, _, err := hub(f)
			if err != nil {
				return err
			}
			root, err := f.ProjectRoot(projectDir)
			if err != nil {
				return err
			}
			args := []string{"connect", "--socket", socket, "--project", root}
			if len(only) > 0 {
				args = append(args, "--only", strings.Join(only, ","))
			}
			return handOver(args...)
		},
	}
	cmd.Flags().StringSliceVar(&only, "only", nil, "servers to see, comma-separated (default: all)")
	cmd.Flags().StringVar(&projectDir, "project", ".", "the project (its root is found from this directory)")
	return cmd
}
