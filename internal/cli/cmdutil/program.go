package cmdutil

import (
	"context"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/proc"
)

// HandOver replaces csa with program run with args, which stands for
// calledAs, the command the user typed for program's root ("csa mcp" for
// csa-mcp): RunProgram names that in its errors rather than the program.
func HandOver(program proc.Program, calledAs string, args ...string) error {
	if err := os.Setenv(csaenv.CalledAs, calledAs); err != nil {
		return err
	}
	return program.Become(args...)
}

// calledAs gives cmd, the root of a program's tree, the name csa handed it
// over as (HandOver), and takes the variable out of the environment so
// that what the program starts does not inherit it.
func calledAs(cmd *cobra.Command) {
	name, ok := os.LookupEnv(csaenv.CalledAs)
	if !ok {
		return
	}
	os.Unsetenv(csaenv.CalledAs)
	if name == "" {
		return
	}
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[cobra.CommandDisplayNameAnnotation] = name
}

// RunProgram runs the command tree of one of csa's programs beside it
// (csa-mcp, csa-ui) under ctx as csa runs its own, and returns the exit
// status: cobra's help and completion; a wrong flag, argument or command
// is a usage error (exit 2). An error is one line on stderr, "COMMAND
// PATH: message", or csa's JSON error line when the command that ran has a
// --json flag and was given it; its exit status is csa's (Classify).
// Handed over by csa (HandOver), the program's root is named as the user
// typed it.
func RunProgram(ctx context.Context, cmd *cobra.Command, args []string, s *IOStreams) int {
	calledAs(cmd)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetFlagErrorFunc(FlagError)
	cmd.SetArgs(args)
	cmd.SetIn(s.In)
	cmd.SetOut(s.Out)
	cmd.SetErr(s.ErrOut)
	ran, err := cmd.ExecuteContextC(ctx)
	return exitStatus(s, ran.CommandPath(), err, ran.Flags().Lookup("json") != nil && JSONRequested(args))
}

// NoArgs is cobra.NoArgs as a usage error, for the commands of a program
// run with RunProgram; on its root command, it refuses unknown commands.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return Usagef("unknown command %q for %q (see `%s --help`)", args[0], cmd.CommandPath(), cmd.CommandPath())
	}
	return nil
}

// NeedsCommand is the RunE of a program's root command, run with no
// command: a usage error naming its commands.
func NeedsCommand(cmd *cobra.Command, _ []string) error {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return Usagef("a command is needed: %s (see `%s --help`)", strings.Join(names, ", "), cmd.CommandPath())
}

// RequireFlag is a usage error when the flag name of cmd was not given a
// value: cobra's own check (MarkFlagRequired) says so in an untyped error.
func RequireFlag(cmd *cobra.Command, name string) error {
	if f := cmd.Flags().Lookup(name); f == nil || f.Value.String() == "" {
		return Usagef("--%s is required (see `%s --help`)", name, cmd.CommandPath())
	}
	return nil
}
