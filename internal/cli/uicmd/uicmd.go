// Package uicmd is `csa top` and `csa serve --ui`: the live views of the
// session tree. Both are csa-ui, a program built and installed beside csa,
// so that csa itself links no terminal UI toolkit and no HTTP server; these
// commands check their flags and hand over to it (exec).
package uicmd

import (
	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/proc"
)

// Program is the views' program built with csa.
const Program = "csa-ui"

// TopOptions are the flags of `csa top`.
type TopOptions struct{ All bool }

// NewTopCmd builds `csa top`.
func NewTopCmd(f *cmdutil.Factory) *cobra.Command {
	o := &TopOptions{}
	cmd := &cobra.Command{
		Use:   "top [--all]",
		Short: "A live full-screen view of this project's session tree (every project with --all)",
		Long: `A live full-screen terminal view of the session tree: each session's state
(! needs input, # stuck, x failed, > working, - idle, ? unknown, = done), tool
and model, age, memory now and at peak, tokens, retries and failovers, and the
last line its agent said, refreshed every 0.9 s. Keys: arrows or j/k move,
enter/space expand or collapse, / filter, a attach (an interactive session;
detach with C-b d to come back), s send a line, l the log, K kill (confirmed),
r review the session's diff, ? help, q quit. The view is csa-ui, built and
installed beside csa (make build, make install).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			args := []string{"top"}
			if o.All {
				args = append(args, "--all")
			}
			return handOver(args)
		},
	}
	cmd.Flags().BoolVarP(&o.All, "all", "a", false, "every project's sessions")
	return cmd
}

// ServeOptions are the flags of `csa serve`.
type ServeOptions struct {
	UI   bool
	Addr string
	All  bool
}

// NewServeCmd builds `csa serve --ui`.
func NewServeCmd(f *cmdutil.Factory) *cobra.Command {
	o := &ServeOptions{}
	cmd := &cobra.Command{
		Use:   "serve --ui [--addr 127.0.0.1:PORT] [--all]",
		Short: "Serve the live session tree as a local web page (csa serve --ui)",
		Long: `Serve csa top's view as a web page on a loopback address (default
127.0.0.1 and a free port) until interrupted: the session tree, live (server-sent
events), a session's log as it grows, send and kill. It prints the page's URL,
which carries a random token: any request without it is refused (403). --json
prints {url, addr, token}. An --addr that is not loopback is refused (exit 2).
The server is csa-ui, built and installed beside csa (make build, make install).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !o.UI {
				return cmdutil.Usagef("csa serve needs --ui (the web view is all it serves)")
			}
			args := []string{"serve"}
			if o.Addr != "" {
				args = append(args, "--addr", o.Addr)
			}
			if o.All {
				args = append(args, "--all")
			}
			if f.JSON {
				args = append(args, "--json")
			}
			return handOver(args)
		},
	}
	cmd.Flags().BoolVar(&o.UI, "ui", false, "serve the web view")
	cmd.Flags().StringVar(&o.Addr, "addr", "", "loopback address to listen on (default 127.0.0.1:0, a free port)")
	cmd.Flags().BoolVarP(&o.All, "all", "a", false, "every project's sessions")
	return cmd
}

// handOver replaces csa with csa-ui, whose commands are csa's (csa top,
// csa serve).
func handOver(args []string) error {
	return cmdutil.HandOver(proc.Program(Program), "csa", args...)
}
