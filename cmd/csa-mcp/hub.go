package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/mcp/hub"
	"github.com/csa-dev/csa/internal/mcp/link"
	"github.com/csa-dev/csa/internal/runner"
)

// runHub is `csa-mcp hub`: the hub in the foreground until it is asked to
// stop, has had no client for its idle time, or gets SIGINT/SIGTERM; its
// backends stop with it and its socket is removed.
func runHub(args []string) int {
	fs := flag.NewFlagSet("hub", flag.ContinueOnError)
	socket := fs.String("socket", "", "unix socket to listen on (its directory is made 0700)")
	file := fs.String("config", "", "TOML file with [servers.NAME] tables (default: csa's configuration, [mcp.servers])")
	cache := fs.String("cache", knownDir(), "directory for the tool lists of lazy servers")
	var idleExit time.Duration
	fs.Var(cmdutil.Duration(&idleExit, 0), "idle-exit", "exit after this long with no client, 0 never (default: mcp.idle_exit; never with --config)")
	if err := fs.Parse(args); err != nil || *socket == "" || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, usage)
		return 2
	}
	var src hub.Source
	var idle time.Duration
	what := ""
	if *file != "" {
		// A bad file is a mistake of whoever started this hub by hand.
		if _, err := hub.LoadConfig(*file); err != nil {
			fmt.Fprintln(os.Stderr, "csa-mcp hub:", err)
			return 1
		}
		src, what = hub.FileSource(*file), *file
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
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "idle-exit" {
			idle = idleExit
		}
	})
	l, err := hub.Listen(*socket)
	if errors.Is(err, hub.ErrHubRunning) {
		fmt.Fprintf(os.Stderr, "csa-mcp hub: %v\n", err)
		return 0
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "csa-mcp hub:", err)
		return 1
	}
	h := hub.NewWithSource(src, os.Stderr)
	h.SetIdleExit(idle)
	h.SetCacheDir(*cache)
	idleSays := "never"
	if idle > 0 {
		idleSays = "after " + idle.String() + " with no client"
	}
	fmt.Fprintf(os.Stderr, "%s csa-mcp hub: pid %d listening on %s; servers from %s; exits %s\n",
		hub.LogTime(), os.Getpid(), *socket, what, idleSays)
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
	if err != nil {
		fmt.Fprintln(os.Stderr, "csa-mcp hub:", err)
		return 1
	}
	return 0
}

// runConnect is `csa-mcp connect`: what an agent program is configured
// with as its MCP server. It starts the hub (this program's hub) when none
// answers: the one the run made sure of may have exited since.
func runConnect(args []string) int {
	fs := flag.NewFlagSet("connect", flag.ContinueOnError)
	socket := fs.String("socket", "", "the hub's unix socket")
	only := fs.String("only", "", "comma-separated servers to see (default: all)")
	project := fs.String("project", "", "project root, for project-scoped and project-defined servers")
	scope := fs.String("scope", "", "the project whose instances of project-scoped servers to share (default: --project)")
	if err := fs.Parse(args); err != nil || *socket == "" || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, usage)
		return 2
	}
	hello := hub.Hello{Project: *project, Scope: *scope, Caller: caller()}
	if *only != "" {
		hello.Only = strings.Split(*only, ",")
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "csa-mcp connect:", err)
		return 1
	}
	for attempt := 0; ; attempt++ {
		if err := link.Ensure(context.Background(), self, *socket, os.Getenv); err != nil {
			fmt.Fprintln(os.Stderr, "csa-mcp connect:", err)
			return 1
		}
		err := hub.Bridge(*socket, hello, os.Stdin, os.Stdout)
		var op *net.OpError
		if attempt == 0 && errors.As(err, &op) && op.Op == "dial" {
			continue // the hub went away between Ensure and the dial (idle exit): start one again
		}
		if err != nil && err != io.EOF {
			fmt.Fprintln(os.Stderr, "csa-mcp connect:", err)
			return 1
		}
		return 0
	}
}

// caller is where this bridge's agent runs, for csa's MCP server behind
// the hub.
func caller() *hub.Caller {
	c := &hub.Caller{Env: map[string]string{}}
	for _, k := range runner.SessionVars {
		if v, ok := os.LookupEnv(k); ok {
			c.Env[k] = v
		}
	}
	c.Cwd, _ = os.Getwd()
	return c
}
