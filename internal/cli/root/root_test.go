package root

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
)

// TestCommandNames: each command is found under the name it is built
// with, so that building only the one called finds it.
func TestCommandNames(t *testing.T) {
	f := &cmdutil.Factory{}
	seen := map[string]bool{}
	for _, c := range commands {
		if got := c.build(f).Name(); got != c.name {
			t.Errorf("command %q is built as %q", c.name, got)
		}
		if seen[c.name] {
			t.Errorf("command %q listed twice", c.name)
		}
		seen[c.name] = true
	}
	if n := len(NewCmd(f).Commands()); n != len(commands) {
		t.Errorf("the full tree has %d commands, the table %d", n, len(commands))
	}
	for args, want := range map[string]string{"run x": "run", "--json ps": "ps", "--json": "", "-- run": ""} {
		if got := called(strings.Fields(args)); got != want {
			t.Errorf("called(%q) = %q, want %q", args, got, want)
		}
	}
	if only := newCmd(f, "run").Commands(); len(only) != 1 || only[0].Name() != "run" {
		t.Errorf("newCmd(run) built %d commands", len(only))
	}
}

// TestDurationFlags: every duration flag of every command reads its value
// with cmdutil's one parser: a negative duration is refused, 0 taken (issue
// 23: csa wait --timeout -3s was accepted where csa run refused it).
func TestDurationFlags(t *testing.T) {
	want := []string{"csa run --timeout", "csa run --idle-timeout", "csa wait --timeout", "csa kill --grace",
		"csa review --timeout", "csa debate --timeout", "csa workflow run --heartbeat", "csa workflow resume --heartbeat"}
	var found []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			if fl.Value.Type() != "duration" {
				return
			}
			name := c.CommandPath() + " --" + fl.Name
			found = append(found, name)
			if _, ok := fl.Value.(*cmdutil.DurationValue); !ok {
				t.Errorf("%s: a %T, not cmdutil's duration flag", name, fl.Value)
			}
			if err := fl.Value.Set("-3s"); err == nil || !strings.Contains(err.Error(), "negative") {
				t.Errorf("%s -3s: %v, want it refused as negative", name, err)
			}
			if err := fl.Value.Set("0"); err != nil {
				t.Errorf("%s 0: %v", name, err)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewCmd(&cmdutil.Factory{}))
	for _, w := range want {
		if !slices.Contains(found, w) {
			t.Errorf("no duration flag %s (found %v)", w, found)
		}
	}
}

// TestArgumentErrorsSayWhatToGive: no command of csa answers a wrong
// number of arguments with cobra's own "accepts 1 arg(s), received 0":
// each checks them with cmdutil's helpers, a usage error said by the
// command that names what to give.
func TestArgumentErrorsSayWhatToGive(t *testing.T) {
	var walk func(c *cobra.Command)
	checked := 0
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c.Args == nil {
			return
		}
		for _, args := range [][]string{nil, make([]string, 9)} {
			err := c.Args(c, args)
			if err == nil || strings.HasPrefix(err.Error(), "unknown command ") {
				continue // cobra.NoArgs: a command of that name is what is missing
			}
			checked++
			var e *cmdutil.Error
			if !errors.As(err, &e) || e.Exit != cmdutil.ExitUsage {
				t.Errorf("%s with %d arguments: %v (%T), want a usage error", c.CommandPath(), len(args), err, err)
				continue
			}
			if strings.Contains(err.Error(), "arg(s)") {
				t.Errorf("%s with %d arguments: cobra's %q", c.CommandPath(), len(args), err)
			}
		}
	}
	walk(NewCmd(&cmdutil.Factory{}))
	if checked < 20 {
		t.Errorf("only %d argument checks refused 0 or 9 arguments", checked)
	}
}
