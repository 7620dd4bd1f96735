package main

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// csaMCP runs the built csa-mcp with args and returns its stdout, stderr
// and exit status.
func csaMCP(t *testing.T, w *world, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "csa-mcp"), args...)
	cmd.Dir, cmd.Env = w.dir, w.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("csa-mcp %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errOut.String(), code
}

// TestHelpListsCommands: csa-mcp's help is cobra's, as csa's is: every
// command listed, on stdout, exit 0.
func TestHelpListsCommands(t *testing.T) {
	w := newWorld(t)
	out, errOut, code := csaMCP(t, w, "--help")
	if code != 0 || errOut != "" {
		t.Fatalf("csa-mcp --help: exit %d, stderr %q", code, errOut)
	}
	for _, c := range []string{"server", "hub", "connect", "status", "stop", "completion"} {
		if !strings.Contains(out, "\n  "+c+" ") {
			t.Errorf("csa-mcp --help does not list %s:\n%s", c, out)
		}
	}
	if out, _, code := csaMCP(t, w, "hub", "--help"); code != 0 || !strings.Contains(out, "--idle-exit duration") || !strings.Contains(out, "--socket string") {
		t.Errorf("csa-mcp hub --help: exit %d\n%s", code, out)
	}
	if out, _, code := csaMCP(t, w, "completion", "bash"); code != 0 || !strings.Contains(out, "csa-mcp") {
		t.Errorf("csa-mcp completion bash: exit %d\n%s", code, out)
	}
}

// TestUsageErrors: a wrong flag, argument or command, or a missing
// --socket, is exit 2 with one line that says what is wrong and where help
// is, as csa's usage errors are; nothing else runs.
func TestUsageErrors(t *testing.T) {
	w := newWorld(t)
	for _, c := range []struct {
		args []string
		line string
	}{
		{[]string{"hub", "--socket", "x.sock", "--bogus"}, "csa-mcp hub: unknown flag: --bogus (see `csa-mcp hub --help`)"},
		{[]string{"status", "-socket", "x.sock"}, "csa-mcp status: unknown shorthand flag: 's' in -socket (see `csa-mcp status --help`)"},
		{[]string{"connect", "--only", "a"}, "csa-mcp connect: --socket is required (see `csa-mcp connect --help`)"},
		{[]string{"stop", "--socket", "x.sock", "now"}, "csa-mcp stop: unknown command \"now\" for \"csa-mcp stop\" (see `csa-mcp stop --help`)"},
		{[]string{"serve"}, "csa-mcp: unknown command \"serve\" for \"csa-mcp\" (see `csa-mcp --help`)"},
		{nil, "csa-mcp: a command is needed: completion, connect, hub, server, status, stop (see `csa-mcp --help`)"},
	} {
		out, errOut, code := csaMCP(t, w, c.args...)
		if code != 2 || errOut != c.line+"\n" || out != "" {
			t.Errorf("csa-mcp %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errOut, c.line)
		}
	}
	// Under --json the line is csa's JSON error line.
	_, errOut, code := csaMCP(t, w, "status", "--json", "--socket", "x.sock", "--bogus")
	if want := `{"error":{"code":"usage","message":"unknown flag: --bogus (see ` + "`csa-mcp status --help`" + `)"}}` + "\n"; code != 2 || errOut != want {
		t.Errorf("csa-mcp status --json --bogus: exit %d, stderr %q, want %q", code, errOut, want)
	}
}

// TestNoHubExit3: status and stop with no hub on the socket say so on one
// line naming the socket, exit 3; status --json says it as csa's JSON
// error line, code no_hub.
func TestNoHubExit3(t *testing.T) {
	w := newWorld(t)
	socket := filepath.Join(w.dir, "none.sock")
	for _, c := range []struct {
		args   []string
		prefix string
	}{
		{[]string{"status", "--socket", socket}, "csa-mcp status: "},
		{[]string{"stop", "--socket", socket}, "csa-mcp stop: "},
		{[]string{"status", "--socket", socket, "--json"}, `{"error":{"code":"no_hub","message":"`},
	} {
		out, errOut, code := csaMCP(t, w, c.args...)
		if code != exitNoHub || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, c.prefix) || !strings.Contains(errOut, socket) {
			t.Errorf("csa-mcp %q: exit %d, stdout %q, stderr %q; want exit 3 and a line %q... naming the socket", c.args, code, out, errOut, c.prefix)
		}
	}
}
