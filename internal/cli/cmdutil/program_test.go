package cmdutil

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/spf13/cobra"
)

// program is a small tree run as csa's programs are: "fail" returns the
// error it is given by name.
func program(fail map[string]error) *cobra.Command {
	root := &cobra.Command{Use: "prog", Args: NoArgs, RunE: NeedsCommand}
	var socket string
	var asJSON bool
	sub := &cobra.Command{Use: "sub", Args: NoArgs, RunE: func(c *cobra.Command, _ []string) error {
		if err := RequireFlag(c, "socket"); err != nil {
			return err
		}
		return fail[socket]
	}}
	sub.Flags().StringVar(&socket, "socket", "", "")
	sub.Flags().BoolVar(&asJSON, "json", false, "")
	root.AddCommand(sub, &cobra.Command{Use: "hidden", Hidden: true, Run: func(*cobra.Command, []string) {}})
	return root
}

func TestRunProgram(t *testing.T) {
	fail := map[string]error{
		"plain":  errors.New("it broke"),
		"typed":  &Error{Code: "no_hub", Exit: 3, Err: errors.New("no hub")},
		"silent": &Silent{Exit: 4},
	}
	for _, c := range []struct {
		args   []string
		exit   int
		stderr string
	}{
		{[]string{"sub", "--socket", "ok"}, 0, ""},
		{[]string{"sub", "--socket", "plain"}, 1, "prog sub: it broke\n"},
		{[]string{"sub", "--socket", "typed"}, 3, "prog sub: no hub\n"},
		{[]string{"sub", "--socket", "typed", "--json"}, 3, `{"error":{"code":"no_hub","message":"no hub"}}` + "\n"},
		{[]string{"sub", "--socket", "silent"}, 4, ""},
		{[]string{"sub", "--nope"}, 2, "prog sub: unknown flag: --nope (see `prog sub --help`)\n"},
		{[]string{"sub", "--json", "--nope"}, 2, `{"error":{"code":"usage","message":"unknown flag: --nope (see ` + "`prog sub --help`" + `)"}}` + "\n"},
		{[]string{"sub", "--socket", ""}, 2, "prog sub: --socket is required (see `prog sub --help`)\n"},
		{[]string{"sub", "--socket", "ok", "extra"}, 2, "prog sub: unknown command \"extra\" for \"prog sub\" (see `prog sub --help`)\n"},
		{[]string{"other"}, 2, "prog: unknown command \"other\" for \"prog\" (see `prog --help`)\n"},
		// The root has no --json: its errors stay text.
		{[]string{"--json"}, 2, "prog: unknown flag: --json (see `prog --help`)\n"},
		{nil, 2, "prog: a command is needed: completion, sub (see `prog --help`)\n"},
	} {
		var out, errOut bytes.Buffer
		code := RunProgram(context.Background(), program(fail), c.args, &IOStreams{Out: &out, ErrOut: &errOut})
		if code != c.exit || errOut.String() != c.stderr || out.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, stderr %q", c.args, code, out.String(), errOut.String(), c.exit, c.stderr)
		}
	}
	var out bytes.Buffer
	if code := RunProgram(context.Background(), program(fail), []string{"--help"}, &IOStreams{Out: &out, ErrOut: &out}); code != 0 || !bytes.Contains(out.Bytes(), []byte("\n  sub ")) || bytes.Contains(out.Bytes(), []byte("hidden")) {
		t.Errorf("--help: exit %d\n%s", code, out.String())
	}
}
