// Command csa-ui is csa's live views, a program of its own so that csa,
// paid on every run, links neither a terminal UI toolkit nor an HTTP
// server: `csa-ui top` (what `csa top` runs) is the full-screen terminal
// view of the session tree, `csa-ui serve` (what `csa serve --ui` runs)
// the same view as a local web page.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
)

func main() {
	os.Exit(cmdutil.RunProgram(context.Background(), newCmd(), os.Args[1:], cmdutil.System()))
}

// readsCtrlC annotates a view that reads Ctrl-C as a key.
const readsCtrlC = "csa-ui/reads-ctrl-c"

// newCmd builds csa-ui's command tree.
func newCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "csa-ui",
		Short: "csa's live views of the session tree: full screen (top) and a local web page (serve)",
		Long: `csa-ui is csa's live views, built and installed beside csa: csa top runs
csa-ui top, and csa serve --ui runs csa-ui serve.`,
		Args: cmdutil.NoArgs,
		RunE: cmdutil.NeedsCommand,
		// SIGTERM and SIGHUP (a closed terminal, a dropped SSH connection)
		// end either view; SIGINT ends the web server, while the terminal
		// view reads Ctrl-C as a key, and leaves the SIGINT of a Ctrl-C
		// typed in a command it runs (a review) to that command.
		PersistentPreRun: func(c *cobra.Command, _ []string) {
			sigs := []os.Signal{syscall.SIGTERM, syscall.SIGHUP}
			if c.Annotations[readsCtrlC] == "" {
				sigs = append(sigs, os.Interrupt)
			}
			// Never stopped: the process ends with the command.
			ctx, _ := signal.NotifyContext(c.Context(), sigs...)
			c.SetContext(ctx)
		},
	}
	cmd.AddCommand(topCmd(), serveCmd())
	return cmd
}
