package main

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// csaUI runs the built csa-ui in the project with args and returns its
// stdout, stderr and exit status.
func csaUI(t *testing.T, w *world, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "csa-ui"), args...)
	cmd.Dir, cmd.Env = w.proj, w.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("csa-ui %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errOut.String(), code
}

// TestHelpListsCommands: csa-ui's help is cobra's, as csa's is: every
// command listed, on stdout, exit 0.
func TestHelpListsCommands(t *testing.T) {
	w := newWorld(t)
	out, errOut, code := csaUI(t, w, "--help")
	if code != 0 || errOut != "" {
		t.Fatalf("csa-ui --help: exit %d, stderr %q", code, errOut)
	}
	for _, c := range []string{"top", "serve", "completion"} {
		if !strings.Contains(out, "\n  "+c+" ") {
			t.Errorf("csa-ui --help does not list %s:\n%s", c, out)
		}
	}
	if out, _, code := csaUI(t, w, "serve", "--help"); code != 0 || !strings.Contains(out, `--addr string   loopback address to listen on (default "127.0.0.1:0")`) {
		t.Errorf("csa-ui serve --help: exit %d\n%s", code, out)
	}
}

// TestUsageErrors: a wrong flag, argument or command, or an address that
// is not loopback, is exit 2 with one line that says what is wrong, as
// csa's usage errors are (csa's JSON error line under --json); nothing
// else runs.
func TestUsageErrors(t *testing.T) {
	w := newWorld(t)
	for _, c := range []struct {
		args []string
		line string
	}{
		{[]string{"top", "--bogus"}, "csa-ui top: unknown flag: --bogus (see `csa-ui top --help`)"},
		{[]string{"serve", "--all", "now"}, "csa-ui serve: unknown command \"now\" for \"csa-ui serve\" (see `csa-ui serve --help`)"},
		{[]string{"web"}, "csa-ui: unknown command \"web\" for \"csa-ui\" (see `csa-ui --help`)"},
		{nil, "csa-ui: a command is needed: completion, serve, top (see `csa-ui --help`)"},
		{[]string{"serve", "--addr", "0.0.0.0:0"}, `csa-ui serve: --addr "0.0.0.0:0" is not a loopback address: listen on 127.0.0.1, ::1 or localhost only`},
		{[]string{"serve", "--json", "--addr", "0.0.0.0:0"}, `{"error":{"code":"usage","message":"--addr \"0.0.0.0:0\" is not a loopback address: listen on 127.0.0.1, ::1 or localhost only"}}`},
		{[]string{"serve", "--json", "--port", "80"}, `{"error":{"code":"usage","message":"unknown flag: --port (see ` + "`csa-ui serve --help`" + `)"}}`},
	} {
		out, errOut, code := csaUI(t, w, c.args...)
		if code != 2 || errOut != c.line+"\n" || out != "" {
			t.Errorf("csa-ui %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errOut, c.line)
		}
	}
}

// TestErrorsNameTheCommandTyped: csa serve hands over to csa-ui serve,
// whose errors then name csa serve, the command the user typed.
func TestErrorsNameTheCommandTyped(t *testing.T) {
	w := newWorld(t)
	cmd := w.cmd("serve", "--ui", "--addr", "0.0.0.0:0")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	want := `csa serve: --addr "0.0.0.0:0" is not a loopback address: listen on 127.0.0.1, ::1 or localhost only` + "\n"
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || errOut.String() != want || out.Len() != 0 {
		t.Errorf("csa serve --ui --addr 0.0.0.0:0: %v, stdout %q, stderr %q; want exit 2 and %q", err, out.String(), errOut.String(), want)
	}
}
