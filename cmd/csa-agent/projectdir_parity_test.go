package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestProjectDirParityWithClaudeCode: started in a folder below a
// repository's root, Claude Code takes that folder as its project: it
// reads the hooks of its .claude/settings.json (not the root's) and
// gives them CLAUDE_PROJECT_DIR naming it. csa-agent must do the same.
func TestProjectDirParityWithClaudeCode(t *testing.T) {
	claude := realClaude(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "hooks.log")
	hook := func(name string) string {
		return `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo ` + name + ` \"$CLAUDE_PROJECT_DIR\" >> ` + log + `"}]}]}}`
	}
	for name, content := range map[string]string{
		"repo/.git/HEAD":                   "ref: refs/heads/main\n",
		"repo/.claude/settings.json":       hook("root"),
		"repo/sub/.claude/settings.json":   hook("sub"),
		"repo/sub/notes.txt":               "notes",
		"home/.claude/settings.local.json": "{}",
	} {
		if err := writeFile(filepath.Join(dir, name), content); err != nil {
			t.Fatal(err)
		}
	}
	home, cwd := filepath.Join(dir, "home"), filepath.Join(dir, "repo", "sub")
	fired := func(command func(url string) *exec.Cmd) string {
		t.Helper()
		if err := os.Remove(log); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		firstRequest(t, commandsScript, "parity", cwd, command)
		data, err := os.ReadFile(log)
		if err != nil {
			t.Fatalf("no hook ran: %v", err)
		}
		return string(data)
	}
	want := "sub " + cwd + "\n"
	if got := fired(func(url string) *exec.Cmd { return claudeCommand(t, claude, home, cwd, url, "parity: go") }); got != want {
		t.Fatalf("Claude Code ran %q, want %q (has it changed?)", got, want)
	}
	if got := fired(func(url string) *exec.Cmd { return agentCommand(t, dir, home, cwd, url, "parity: go") }); got != want {
		t.Errorf("csa-agent ran %q, want %q", got, want)
	}
}
