package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cluster/devserver"
	"github.com/csa-dev/csa/internal/statedir"
)

// runDev is `csa cluster dev`: an embedded JetStream server in the
// foreground until SIGINT or SIGTERM.
func runDev(ctx context.Context, e *env, args []string) error {
	fs := flags("dev")
	port := fs.Int("port", 4222, "port on 127.0.0.1 (0: any free port)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 || *port < 0 || *port > 65535 {
		return cmdutil.Usagef("csa cluster dev [--port N]: port 0-65535, no arguments")
	}
	dir := devserver.Dir(statedir.Dir(e.getenv))
	s, err := devserver.Start(dir, *port)
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
