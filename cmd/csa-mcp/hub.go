package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/csa-dev/csa/internal/mcphub"
)

// runHub is `csa-mcp hub`: the hub in the foreground until SIGINT/SIGTERM,
// which stop its backends too.
func runHub(args []string) int {
	fs := flag.NewFlagSet("hub", flag.ContinueOnError)
	socket := fs.String("socket", "", "unix socket to listen on (its directory is made 0700)")
	config := fs.String("config", "", "TOML file with [servers.NAME] tables")
	cache := fs.String("cache", knownDir(), "directory for the tool lists of lazy servers")
	if err := fs.Parse(args); err != nil || *socket == "" || *config == "" || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, usage)
		return 2
	}
	cfg, err := mcphub.LoadConfig(*config)
	if err != nil {
		fmt.Fprintln(os.Stderr, "csa-mcp hub:", err)
		return 1
	}
	l, err := mcphub.Listen(*socket)
	if err != nil {
		fmt.Fprintln(os.Stderr, "csa-mcp hub:", err)
		return 1
	}
	h := mcphub.New(cfg, os.Stderr)
	h.SetCacheDir(*cache)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		h.Close()
	}()
	err = h.Serve(l)
	h.Close()
	os.Remove(*socket)
	if err != nil {
		fmt.Fprintln(os.Stderr, "csa-mcp hub:", err)
		return 1
	}
	return 0
}

// runConnect is `csa-mcp connect`: what an agent program is configured
// with as its MCP server.
func runConnect(args []string) int {
	fs := flag.NewFlagSet("connect", flag.ContinueOnError)
	socket := fs.String("socket", "", "the hub's unix socket")
	only := fs.String("only", "", "comma-separated servers to see (default: all)")
	project := fs.String("project", "", "project root, for project-scoped servers")
	if err := fs.Parse(args); err != nil || *socket == "" || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, usage)
		return 2
	}
	hello := mcphub.Hello{Project: *project}
	if *only != "" {
		hello.Only = strings.Split(*only, ",")
	}
	if err := mcphub.Bridge(*socket, hello, os.Stdin, os.Stdout); err != nil && err != io.EOF {
		fmt.Fprintln(os.Stderr, "csa-mcp connect:", err)
		return 1
	}
	return 0
}
