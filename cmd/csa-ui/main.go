// Command csa-ui is csa's live views, a program of its own so that csa,
// paid on every run, links neither a terminal UI toolkit nor an HTTP
// server: `csa-ui top` (what `csa top` runs) is the full-screen terminal
// view of the session tree, `csa-ui serve` (what `csa serve --ui` runs)
// the same view as a local web page.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage: csa-ui top [--all]
                        the session tree of this project (every project with --all), live, full screen
       csa-ui serve [--addr 127.0.0.1:PORT] [--all] [--json]
                        the same view as a local web page: prints its URL (with a token) and serves
                        until interrupted; --addr must be a loopback address (default 127.0.0.1:0)`

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// exit statuses, as csa's.
const (
	exitError = 1
	exitUsage = 2
)

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return exitUsage
	}
	// SIGTERM and SIGHUP (a closed terminal, a dropped SSH connection)
	// end either view; SIGINT ends the web server, while the terminal view
	// reads Ctrl-C as a key, and leaves the SIGINT of a Ctrl-C typed in a
	// command it runs (a review) to that command.
	sigs := []os.Signal{syscall.SIGTERM, syscall.SIGHUP}
	if args[0] != "top" {
		sigs = append(sigs, os.Interrupt)
	}
	ctx, stop := signal.NotifyContext(context.Background(), sigs...)
	defer stop()
	var err error
	switch args[0] {
	case "top":
		err = runTop(ctx, args[1:])
	case "serve":
		err = runServe(ctx, args[1:], stdout)
	default:
		fmt.Fprintln(stderr, usage)
		return exitUsage
	}
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintln(stderr, usage)
		return 0
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "csa-ui:", err)
		return exitUsage
	}
	fmt.Fprintln(stderr, "csa-ui:", err)
	return exitError
}

type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// parse parses flags, a usage error when they are wrong.
func parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usagef("%s: %v", fs.Name(), err)
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected arguments %q", fs.Name(), fs.Args())
	}
	return nil
}
