package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/mcp/hub"
)

// hubOptions are the flags of `csa-mcp hub`.
type hubOptions struct {
	socket, file, cache string
	idleExit            time.Duration
}

// hubCmd is `csa-mcp hub`: the hub in the foreground until it is asked to
// stop, has had no client for its idle time, or gets SIGINT/SIGTERM; its
// backends stop with it and its socket is removed.
func hubCmd() *cobra.Command {
	o := &hubOptions{}
	cmd := &cobra.Command{
		Use:   "hub --socket PATH [--config FILE] [--idle-exit D] [--cache DIR]",
		Short: "The MCP hub in the foreground, shared by every client of the unix socket PATH",
		Long: `The MCP hub in the foreground: the servers of csa's configuration ([mcp.servers]
of the global file and of each client's project), or of FILE ([servers.NAME] tables),
shared by every client of the unix socket PATH; exits after D (default mcp.idle_exit;
with --config, never) with no client, on csa-mcp stop, SIGINT or SIGTERM; lazy
servers' tool lists kept in DIR (default: the state directory's mcp-known).`,
		Args: cmdutil.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := cmdutil.RequireFlag(c, "socket"); err != nil {
				return err
			}
			return runHub(o, c.Flags().Changed("idle-exit"))
		},
	}
	cmd.Flags().StringVar(&o.socket, "socket", "", "unix socket to listen on (its directory is made 0700)")
	cmd.Flags().StringVar(&o.file, "config", "", "TOML file with [servers.NAME] tables (default: csa's configuration, [mcp.servers])")
	cmd.Flags().StringVar(&o.cache, "cache", knownDir(), "directory for the tool lists of lazy servers")
	cmd.Flags().Var(cmdutil.Duration(&o.idleExit, 0), "idle-exit", "exit after this long with no client, 0 never (default: mcp.idle_exit; never with --config)")
	return cmd
}

// runHub serves until the hub ends; idleGiven is whether --idle-exit was.
func runHub(o *hubOptions, idleGiven bool) error {
	var src hub.Source
	var idle time.Duration
	what := ""
	if o.file != "" {
		// A bad file is a mistake of whoever started this hub by hand.
		if _, err := hub.LoadConfig(o.file); err != nil {
			return err
		}
		src, what = hub.FileSource(o.file), o.file
	} else {
		global := config.GlobalPath()
		src, what = hub.CSAConfig(global), "csa's configuration ("+global+" and each client's project)"
		var err error
		if idle, err = hub.IdleExit(global); err != nil {
			// The hub serves anyway: each client is refused with this
			// error until the file is fixed.
			fmt.Fprintf(os.Stderr, "%s csa-mcp hub: %v\n", hub.LogTime(), err)
		}
	}
	if idleGiven {
		idle = o.idleExit
	}
	l, err := hub.Listen(o.socket)
	if errors.Is(err, hub.ErrHubRunning) {
		fmt.Fprintf(os.Stderr, "csa-mcp hub: %v\n", err)
		return nil
	}
	if err != nil {
		return err
	}
	h := hub.NewWithSource(src, os.Stderr)
	h.SetIdleExit(idle)
	h.SetCacheDir(o.cache)
	idleSays := "never"
	if idle > 0 {
		idleSays = "after " + idle.String() + " with no client"
	}
	fmt.Fprintf(os.Stderr, "%s csa-mcp hub: pid %d listening on %s; servers from %s; exits %s\n",
		hub.LogTime(), os.Getpid(), o.socket, what, idleSays)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		select {
		case <-ctx.Done():
			fmt.Fprintf(os.Stderr, "%s csa-mcp hub: signalled: exiting\n", hub.LogTime())
			h.Close()
		case <-h.Done():
		}
	}()
	err = h.Serve(l)
	h.Close()
	l.Release()
	return err
}
