package root

import (
	"strings"
	"testing"

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
