// Package root assembles the csa command tree and turns errors into exit
// statuses in one place.
package root

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/attach"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cli/configcmd"
	"github.com/csa-dev/csa/internal/cli/debate"
	"github.com/csa-dev/csa/internal/cli/dev"
	"github.com/csa-dev/csa/internal/cli/doctor"
	"github.com/csa-dev/csa/internal/cli/gc"
	"github.com/csa-dev/csa/internal/cli/initcmd"
	"github.com/csa-dev/csa/internal/cli/inspect"
	"github.com/csa-dev/csa/internal/cli/kill"
	"github.com/csa-dev/csa/internal/cli/logs"
	"github.com/csa-dev/csa/internal/cli/pane"
	"github.com/csa-dev/csa/internal/cli/ps"
	"github.com/csa-dev/csa/internal/cli/review"
	"github.com/csa-dev/csa/internal/cli/rm"
	"github.com/csa-dev/csa/internal/cli/run"
	"github.com/csa-dev/csa/internal/cli/send"
	"github.com/csa-dev/csa/internal/cli/shim"
	"github.com/csa-dev/csa/internal/cli/status"
	"github.com/csa-dev/csa/internal/cli/supervise"
	"github.com/csa-dev/csa/internal/cli/tiers"
	"github.com/csa-dev/csa/internal/cli/tools"
	"github.com/csa-dev/csa/internal/cli/wait"
	"github.com/csa-dev/csa/internal/interrupt"
	"github.com/csa-dev/csa/internal/proc"
)

// Version is set at build time.
var Version = "dev"

// NewCmd builds the root command.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "csa",
		Short: "csa runs AI coding agents as supervised, recorded, recursive sub-agents",
		Long: `csa runs AI coding-agent programs (claude-code, codex, gemini-cli, opencode)
as sub-agents: each run is a session with a ULID, supervised in its own process
group, recorded under the state directory, and able to call csa again.`,
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.PersistentFlags().BoolVar(&f.JSON, "json", false, "machine-readable JSON output (errors too, on stderr)")
	// The one context of the command: cancelled by the first SIGINT,
	// SIGTERM or SIGHUP (a pane wrapper leaves SIGINT to its agent).
	cmd.PersistentPreRun = func(c *cobra.Command, _ []string) {
		cancel, keep := interrupt.Terminal, []os.Signal(nil)
		if c.Annotations[cmdutil.Signals] == cmdutil.SignalsPane {
			cancel, keep = []os.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}, []os.Signal{syscall.SIGINT}
		}
		ctx, _ := interrupt.Notify(c.Context(), cancel, keep)
		c.SetContext(ctx)
	}
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return cmdutil.Usagef("%v (see `%s --help`)", err, c.CommandPath())
	})
	cmd.AddCommand(
		run.NewCmd(f, nil),
		ps.NewCmd(f, nil),
		inspect.NewCmd(f),
		logs.NewCmd(f),
		wait.NewCmd(f),
		kill.NewCmd(f),
		rm.NewCmd(f),
		gc.NewCmd(f),
		configcmd.NewCmd(f),
		initcmd.NewCmd(f),
		doctor.NewCmd(f, Version),
		tools.NewCmd(f),
		tiers.NewCmd(f),
		review.NewCmd(f, nil),
		debate.NewCmd(f, nil),
		dev.NewCmd(f),
		supervise.NewCmd(f),
		pane.NewCmd(f),
		pane.NewHookCmd(f),
		run.NewSpawnCmd(f),
		send.NewCmd(f),
		status.NewCmd(f),
		attach.NewCmd(f),
		shim.NewCmd(),
	)
	return cmd
}

// Main runs csa with args under ctx and returns the process exit status.
func Main(ctx context.Context, f *cmdutil.Factory, args []string) int {
	cmd := NewCmd(f)
	cmd.SetArgs(args)
	cmd.SetOut(f.IO.Out)
	cmd.SetErr(f.IO.ErrOut)
	ran, err := cmd.ExecuteContextC(ctx)
	if err == nil {
		return cmdutil.ExitOK
	}
	// A command that gave up because it was interrupted says so.
	if sig, ok := interrupt.Cause(ran.Context()); ok && errors.Is(err, context.Canceled) {
		err = sig
	}
	var silent *cmdutil.Silent
	if errors.As(err, &silent) {
		return silent.Exit
	}
	if isCobraUsage(err) {
		err = cmdutil.Usagef("%v", err)
	}
	f.IO.PrintError(err, f.JSON || jsonRequested(args))
	_, code := cmdutil.Classify(err)
	return code
}

// isCobraUsage recognises cobra's own argument errors (unknown command,
// wrong number of arguments), which carry no type.
func isCobraUsage(err error) bool {
	var e *cmdutil.Error
	if errors.As(err, &e) {
		return false
	}
	code, _ := cmdutil.Classify(err)
	if code != "internal" {
		return false
	}
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "requires at most", "unknown flag", "unknown shorthand", "invalid argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// jsonRequested spots --json when flag parsing itself failed.
func jsonRequested(args []string) bool {
	for _, a := range args {
		if a == "--json" || a == "--json=true" {
			return true
		}
		if a == "--" {
			break
		}
	}
	return false
}

// Entry is csa's main: the real process environment, the real streams.
func Entry() int {
	// The group keeper runs for the whole of every run: it starts before
	// any of the command tree is built.
	if len(os.Args) > 1 && os.Args[1] == proc.KeeperCommand {
		return proc.KeeperMain(os.Args[2:])
	}
	f := &cmdutil.Factory{
		IO: cmdutil.System(), Getenv: os.Getenv, Environ: os.Environ, Now: time.Now,
		Executable: os.Executable,
	}
	return Main(context.Background(), f, os.Args[1:])
}
