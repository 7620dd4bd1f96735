package main

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/mcp/hub"
	"github.com/csa-dev/csa/internal/mcp/link"
)

// connectOptions are the flags of `csa-mcp connect`.
type connectOptions struct{ socket, only, project, scope string }

// connectCmd is `csa-mcp connect`: what an agent program is configured
// with as its MCP server.
func connectCmd() *cobra.Command {
	o := &connectOptions{}
	cmd := &cobra.Command{
		Use:   "connect --socket PATH [--only a,b] [--project DIR] [--scope DIR]",
		Short: "A stdio MCP server bridging to the hub on PATH (started if none answers)",
		Long: `A stdio MCP server bridging to the hub on PATH (started if none answers),
seeing DIR's servers; project-scoped ones shared with the project of --scope
(default --project).`,
		Args: cmdutil.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := cmdutil.RequireFlag(c, "socket"); err != nil {
				return err
			}
			return runConnect(o)
		},
	}
	cmd.Flags().StringVar(&o.socket, "socket", "", "the hub's unix socket")
	cmd.Flags().StringVar(&o.only, "only", "", "comma-separated servers to see (default: all)")
	cmd.Flags().StringVar(&o.project, "project", "", "project root, for project-scoped and project-defined servers")
	cmd.Flags().StringVar(&o.scope, "scope", "", "the project whose instances of project-scoped servers to share (default: --project)")
	return cmd
}

// runConnect bridges stdio to the hub. It starts the hub (this program's
// hub) when none answers: the one the run made sure of may have exited
// since.
func runConnect(o *connectOptions) error {
	hello := hub.Hello{Project: o.project, Scope: o.scope, Caller: caller()}
	if o.only != "" {
		hello.Only = strings.Split(o.only, ",")
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		if err := link.Ensure(context.Background(), self, o.socket, os.Getenv); err != nil {
			return err
		}
		err := hub.Bridge(o.socket, hello, os.Stdin, os.Stdout)
		var op *net.OpError
		if attempt == 0 && errors.As(err, &op) && op.Op == "dial" {
			continue // the hub went away between Ensure and the dial (idle exit): start one again
		}
		if err != nil && err != io.EOF {
			return err
		}
		return nil
	}
}

// caller is where this bridge's agent runs, for csa's MCP server behind
// the hub.
func caller() *hub.Caller {
	c := &hub.Caller{Env: map[string]string{}}
	for _, k := range csaenv.Run {
		if v, ok := os.LookupEnv(k); ok {
			c.Env[k] = v
		}
	}
	c.Cwd, _ = os.Getwd()
	return c
}
