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

	"github.com/csa-dev/csa/internal/cli/apply"
	"github.com/csa-dev/csa/internal/cli/attach"
	"github.com/csa-dev/csa/internal/cli/batch"
	"github.com/csa-dev/csa/internal/cli/change"
	"github.com/csa-dev/csa/internal/cli/clustercmd"
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
	"github.com/csa-dev/csa/internal/cli/mcpcmd"
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
	"github.com/csa-dev/csa/internal/cli/todo"
	"github.com/csa-dev/csa/internal/cli/tools"
	"github.com/csa-dev/csa/internal/cli/uicmd"
	"github.com/csa-dev/csa/internal/cli/usage"
	"github.com/csa-dev/csa/internal/cli/wait"
	"github.com/csa-dev/csa/internal/cli/workflow"
	"github.com/csa-dev/csa/internal/interrupt"
	"github.com/csa-dev/csa/internal/keeper"
	"github.com/csa-dev/csa/internal/resource"
)

// Version is set at build time.
var Version = "dev"

// commands are csa's commands by name, each built only when asked for:
// csa starts for every run, and the command it runs needs only its own.
var commands = []struct {
	name  string
	build func(*cmdutil.Factory) *cobra.Command
}{
	{"run", func(f *cmdutil.Factory) *cobra.Command { return run.NewCmd(f, nil) }},
	{"ps", func(f *cmdutil.Factory) *cobra.Command { return ps.NewCmd(f, nil) }},
	{"inspect", inspect.NewCmd},
	{"usage", usage.NewCmd},
	{"logs", logs.NewCmd},
	{"wait", wait.NewCmd},
	{"kill", kill.NewCmd},
	{"rm", rm.NewCmd},
	{"gc", gc.NewCmd},
	{"config", configcmd.NewCmd},
	{"init", initcmd.NewCmd},
	{"doctor", func(f *cmdutil.Factory) *cobra.Command { return doctor.NewCmd(f, Version) }},
	{"tools", tools.NewCmd},
	{"tiers", tiers.NewCmd},
	{"review", func(f *cmdutil.Factory) *cobra.Command { return review.NewCmd(f, nil) }},
	{"debate", func(f *cmdutil.Factory) *cobra.Command { return debate.NewCmd(f, nil) }},
	{"todo", todo.NewCmd},
	{"workflow", workflow.NewCmd},
	{"batch", batch.NewCmd},
	{"dev", dev.NewCmd},
	{"mcp-server", mcpcmd.NewCmd},
	{"mcp", mcpcmd.NewHubCmd},
	{"top", uicmd.NewTopCmd},
	{"serve", uicmd.NewServeCmd},
	{"cluster", clustercmd.NewCmd},
	{"worker", clustercmd.NewWorkerCmd},
	{"apply", apply.NewCmd},
	{"diff", change.NewDiffCmd},
	{"branch", change.NewBranchCmd},
	{"merge", change.NewMergeCmd},
	{"__supervise", supervise.NewCmd},
	{"__pane", pane.NewCmd},
	{"__hook", pane.NewHookCmd},
	{"spawn", run.NewSpawnCmd},
	{"send", send.NewCmd},
	{"status", status.NewCmd},
	{"attach", attach.NewCmd},
	{resource.ShimCommand, func(*cmdutil.Factory) *cobra.Command { return shim.NewCmd() }},
}

// NewCmd builds the root command with every command.
func NewCmd(f *cmdutil.Factory) *cobra.Command { return newCmd(f, "") }

// newCmd builds the root command with the command called only, or with
// every command when only is "" or none is called so.
func newCmd(f *cmdutil.Factory, only string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "csa",
		Short: "csa runs AI coding agents as supervised, recorded, recursive sub-agents",
		Long: `csa runs AI coding-agent programs (claude-code, codex, gemini-cli, opencode,
and csa-agent, its own) as sub-agents: each run is a session with a ULID, supervised in its own process
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
	cmd.SetFlagErrorFunc(cmdutil.FlagError)
	for _, c := range commands {
		if only == c.name {
			cmd.AddCommand(c.build(f))
			return cmd
		}
	}
	for _, c := range commands {
		cmd.AddCommand(c.build(f))
	}
	return cmd
}

// called is the command args name: the first argument that is not a
// flag (csa's own flags take no separate value).
func called(args []string) string {
	for _, a := range args {
		if a == "--" {
			return ""
		}
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// Main runs csa with args under ctx and returns the process exit status.
func Main(ctx context.Context, f *cmdutil.Factory, args []string) int {
	cmd := newCmd(f, called(args))
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
	return cmdutil.ExitStatus(f.IO, err, f.JSON || cmdutil.JSONRequested(args))
}

// Entry is csa's main: the real process environment, the real streams.
func Entry() int {
	// The keepers (a run's own, the daemon) and the exec shim start before any of the
	// command tree is built.
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case keeper.Command:
			return keeper.Main(os.Args[2:])
		case keeper.DaemonCommand:
			return keeper.DaemonMain(os.Args[2:])
		case resource.ShimCommand:
			// The exec shim is on every confined run's start: no command
			// tree is built for it.
			return shim.Main(os.Args[2:])
		}
	}
	f := &cmdutil.Factory{
		IO: cmdutil.System(), Getenv: os.Getenv, Environ: os.Environ, Now: time.Now,
		Executable: os.Executable,
	}
	return Main(context.Background(), f, os.Args[1:])
}
