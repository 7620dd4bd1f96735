package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cluster/devserver"
	"github.com/csa-dev/csa/internal/statedir"
)

func newDevCmd(e *env) *cobra.Command {
	var port int
	cmd := &cobra.Command{
		Use:   "dev [--port N]",
		Short: "An embedded JetStream server on 127.0.0.1, state in csa's state directory, until SIGINT or SIGTERM",
		RunE: func(c *cobra.Command, args []string) error {
			return runDev(c.Context(), e, port, args)
		},
	}
	cmd.Flags().IntVar(&port, "port", 4222, "port on 127.0.0.1 (0: any free port)")
	return cmd
}

// runDev is `csa cluster dev`: an embedded JetStream server in the
// foreground until SIGINT or SIGTERM.
func runDev(ctx context.Context, e *env, port int, args []string) error {
	if len(args) > 0 || port < 0 || port > 65535 {
		return cmdutil.Usagef("csa cluster dev [--port N]: port 0-65535, no arguments")
	}
	dir := devserver.Dir(statedir.Dir(e.getenv))
	s, err := devserver.Start(dir, port)
	if err != nil {
		return err
	}
	defer s.Stop()
	if e.json {
		json.NewEncoder(e.out).Encode(map[string]string{"url": s.URL(), "store_dir": dir})
	} else {
		fmt.Fprintln(e.out, s.URL())
		fmt.Fprintf(e.errOut, "csa cluster dev: JetStream server on %s (state in %s); set [cluster] url = %q; Ctrl-C stops it\n", s.URL(), dir, s.URL())
	}
	<-ctx.Done()
	return nil
}
