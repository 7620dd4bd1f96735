package cmdutil

import (
	"context"
	"errors"
	"strings"

	"github.com/spf13/cobra"
)

// RunProgram runs the command tree of one of csa's programs beside it
// (csa-mcp, csa-ui) under ctx as csa runs its own, and returns the exit
// status: cobra's help and completion; a wrong flag, argument or command
// is a usage error (exit 2). An error is one line on stderr, "COMMAND
// PATH: message", or csa's JSON error line when the command that ran has a
// --json flag and was given it. An error carries its exit status as an
// *Error or a *Silent; any other is exit 1, the program's own failure.
func RunProgram(ctx context.Context, cmd *cobra.Command, args []string, s *IOStreams) int {
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return Usagef("%v (see `%s --help`)", err, c.CommandPath())
	})
	cmd.SetArgs(args)
	cmd.SetIn(s.In)
	cmd.SetOut(s.Out)
	cmd.SetErr(s.ErrOut)
	ran, err := cmd.ExecuteContextC(ctx)
	if err == nil {
		return ExitOK
	}
	var silent *Silent
	if errors.As(err, &silent) {
		return silent.Exit
	}
	s.PrintErrorAs(ran.CommandPath(), err, ran.Flags().Lookup("json") != nil && jsonAsked(args))
	var e *Error
	if errors.As(err, &e) {
		return e.Exit
	}
	return ExitFailed
}

// jsonAsked spots --json in args, whether or not their parsing failed.
func jsonAsked(args []string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--json" || a == "--json=true" {
			return true
		}
	}
	return false
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
