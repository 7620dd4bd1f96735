package cmdutil

import (
	"github.com/spf13/cobra"
)

// ArgsBetween is a command's check of its arguments: min to max of them
// (max < 0: no limit), else a usage error said by the command, naming
// what to give, such as "csa inspect: give a session id (see `csa ps`)",
// where cobra would say "accepts 1 arg(s), received 0".
func ArgsBetween(min, max int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch n := len(args); {
		case n < min:
			return argsError(cmd, "give %s", what)
		case max >= 0 && n > max:
			return argsError(cmd, "too many arguments (%d): give %s", n, what)
		}
		return nil
	}
}

// ExactArgs is ArgsBetween(n, n, what).
func ExactArgs(n int, what string) cobra.PositionalArgs { return ArgsBetween(n, n, what) }

// MinimumArgs is ArgsBetween(n, no limit, what).
func MinimumArgs(n int, what string) cobra.PositionalArgs { return ArgsBetween(n, -1, what) }

// MaximumArgs is ArgsBetween(0, n, what).
func MaximumArgs(n int, what string) cobra.PositionalArgs { return ArgsBetween(0, n, what) }

// argsError is a usage error said by cmd (its command path).
func argsError(cmd *cobra.Command, format string, a ...any) error {
	err := Usagef(format, a...).(*Error)
	err.Who = cmd.CommandPath()
	return err
}
