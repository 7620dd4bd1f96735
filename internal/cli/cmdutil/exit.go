package cmdutil

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
)

// FlagError is a command tree's flag error as a usage error (exit 2),
// pointing at the command's help (cobra.Command.SetFlagErrorFunc).
func FlagError(c *cobra.Command, err error) error {
	return Usagef("%v (see `%s --help`)", err, c.CommandPath())
}

// ExitStatus is the exit status of a command tree's run that returned
// err, which it prints on io's standard error (a JSON error line with
// asJSON); a Silent error has been explained already.
func ExitStatus(io *IOStreams, err error, asJSON bool) int {
	return exitStatus(io, "csa", err, asJSON)
}

// exitStatus is ExitStatus with the error said by who (a program, or a
// command path such as "csa-mcp hub") when it is not JSON.
func exitStatus(io *IOStreams, who string, err error, asJSON bool) int {
	if err == nil {
		return ExitOK
	}
	var silent *Silent
	if errors.As(err, &silent) {
		return silent.Exit
	}
	if isCobraUsage(err) {
		err = Usagef("%v", err)
	}
	var e *Error
	if errors.As(err, &e) && e.Who != "" {
		who = e.Who
	}
	io.PrintErrorAs(who, err, asJSON)
	_, code := Classify(err)
	return code
}

// isCobraUsage recognises cobra's own argument errors (unknown command,
// wrong number of arguments), which carry no type.
func isCobraUsage(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return false
	}
	code, _ := Classify(err)
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

// JSONRequested spots --json in args when flag parsing itself failed.
func JSONRequested(args []string) bool {
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
