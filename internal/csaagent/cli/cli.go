// Package cli is csa-agent's command line: flags, configuration, the
// headless run (-p) and the line-mode REPL. It assembles the parts
// (provider, tools, permissions, store, renderers) and hands them to the
// loop.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/render"
)

// Version is set at build time.
var Version = "dev"

// IO is the process's standard streams and environment.
type IO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Cwd            string
}

// Main runs csa-agent and returns its exit code.
func Main(args []string) int {
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "csa-agent:", err)
		return exitFailed
	}
	sio := IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Cwd: cwd}
	// SIGINT is the turn's (the REPL keeps going) or the run's (headless,
	// see headless); SIGTERM ends everything.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	return Run(ctx, args, sio)
}

// Run is Main with its world given.
func Run(ctx context.Context, args []string, sio IO) int {
	if len(args) > 0 {
		// The protocol front ends are subcommands; everything else is a
		// prompt and flags.
		switch args[0] {
		case "app-server":
			return appServer(ctx, args[1:], sio)
		case "mcp-serve":
			return mcpServe(ctx, args[1:], sio)
		case "plugin", "plugins":
			return pluginCommand(ctx, args[1:], sio)
		}
	}
	o, err := parseFlags(args, sio.Stderr)
	if errors.Is(err, pflag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(sio.Stderr, "csa-agent:", err)
		return exitUsage
	}
	if o.version {
		fmt.Fprintln(sio.Stdout, "csa-agent", Version)
		return exitOK
	}
	if o.acp {
		return serveACP(ctx, o, sio)
	}
	if o.print {
		if o.prompt == "" || o.prompt == "-" {
			b, err := io.ReadAll(sio.Stdin)
			if err != nil {
				fmt.Fprintln(sio.Stderr, "csa-agent: read the prompt:", err)
				return exitFailed
			}
			o.prompt = strings.TrimSpace(string(b))
		}
		if o.prompt == "" {
			fmt.Fprintln(sio.Stderr, "csa-agent: -p needs a prompt (an argument or stdin)")
			return exitUsage
		}
	}
	o.repl = !o.print
	s, err := open(ctx, o, sio)
	if err != nil {
		var ue usageError
		fmt.Fprintln(sio.Stderr, "csa-agent:", err)
		if errors.As(err, &ue) {
			return exitUsage
		}
		failedToStart(o, sio, err)
		return exitFailed
	}
	if o.print {
		defer s.close()
		return s.headless(ctx, o.prompt)
	}
	return s.repl(ctx, o.prompt)
}

// usageError is a bad flag value or configuration: exit 2.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// failedToStart writes the result of a run that could not start (no key,
// an unreadable session) for callers that read results, with its failure
// class (auth for a missing key), as a failed run's.
func failedToStart(o *options, sio IO, err error) {
	if o.outputFormat == "text" {
		return
	}
	r := render.Result(event.Event{Kind: event.Result, Text: err.Error(), IsError: true,
		Class: llm.ClassOf(err), Mode: "error"}, o.sessionID)
	b, _ := json.Marshal(r)
	fmt.Fprintln(sio.Stdout, string(b))
}
