package skills

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// fakeShell allows what starts with "git " or "echo", and answers from
// outputs.
type fakeShell struct {
	ran     []string
	outputs map[string][3]string // stdout, stderr, exit code ("0", "1")
}

func (f *fakeShell) Allowed(cmd string) (bool, string) {
	if strings.HasPrefix(cmd, "git ") || strings.HasPrefix(cmd, "echo") {
		return true, ""
	}
	return false, "Bash(" + cmd + ") needs permission"
}

func (f *fakeShell) Run(_ context.Context, cmd string) (string, string, int, error) {
	f.ran = append(f.ran, cmd)
	o := f.outputs[cmd]
	code := 0
	if o[2] == "1" {
		code = 1
	}
	return o[0], o[1], code, nil
}

func TestRunShell(t *testing.T) {
	sh := &fakeShell{outputs: map[string][3]string{
		"git status": {"\n  \n  on main\n", "", "0"},
		"git quiet":  {"", " \n", "0"},
		"git diff":   {"diff text", "warning: x\n", "0"},
		"echo block": {"from the block\n", "", "0"},
		"git fail":   {"partial", "fatal: no", "1"},
	}}
	body := "Status: !`git status`\n" +
		"Diff:\n!`git diff`\n" +
		"Quiet: !`git quiet`\n" +
		"Not a line: a!`git x` and `code with !`git y`` and `!`\n" +
		"```!\necho block\n```\n"
	got, err := RunShell(context.Background(), body, sh)
	if err != nil {
		t.Fatal(err)
	}
	want := "Status:   on main\nDiff:\ndiff text\nwarning: x\nQuiet: (Bash completed with no output)\n" +
		"Not a line: a!`git x` and `code with !`git y`` and `!`\nfrom the block\n"
	if got != want {
		t.Errorf("RunShell =\n%q\nwant\n%q", got, want)
	}
	if strings.Join(sh.ran, ",") != "echo block,git status,git diff,git quiet" {
		t.Errorf("ran %q", sh.ran)
	}

	// Refused: nothing runs after it, and Claude Code's message says why.
	sh.ran = nil
	_, err = RunShell(context.Background(), "!`rm -rf x` then !`git status`", sh)
	var se *ShellError
	if !errors.As(err, &se) || err.Error() != "Shell command permission check failed for pattern \"!`rm -rf x`\": Bash(rm -rf x) needs permission" || len(sh.ran) != 0 {
		t.Errorf("refused: %v, ran %q", err, sh.ran)
	}
	// Failing: its output is in the message.
	_, err = RunShell(context.Background(), "!`git fail`", sh)
	if !errors.As(err, &se) || err.Error() != "Shell command failed for pattern \"!`git fail`\": partial\n[stderr]\nfatal: no" {
		t.Errorf("failed: %v", err)
	}
}

// Arguments never start shell lines: their "!" is spaced or escaped, as
// Claude Code does.
func TestArgumentsQuoted(t *testing.T) {
	got := prompt(t, Skill{Kind: KindCommand, Body: "Do $ARGUMENTS"}, "!`rm x` now! and `!`", "")
	if got != "Do \\! `rm x` now! and ` \\! `" {
		t.Errorf("Prompt = %q", got)
	}
}
