package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rewakeScript calls Bash twice; the answer after the calls says "noted".
const rewakeScript = `
[[rule]]
name = "main"
contains = "rewake parity"
  [[rule.step]]
  text = "running"
  [[rule.step.calls]]
  name = "Bash"
  args = { command = "echo now", description = "say" }
  [[rule.step]]
  text = "again"
  [[rule.step.calls]]
  name = "Bash"
  args = { command = "echo later", description = "say" }
  [[rule.step]]
  text = "noted"
`

// rewakeSettings: an asyncRewake hook on the first call exits 2 at once;
// an async one on the second waits for the Stop hook, then leaves a mark.
const rewakeSettings = `{"hooks": {
  "PostToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "asyncRewake": true, "rewakeMessage": "PREFIX", "if": "Bash(echo now)", "command": "echo 'rewake says no' >&2; exit 2"},
    {"type": "command", "async": true, "asyncRewake": true, "if": "Bash(echo later)",
     "command": "while [ ! -f $CLAUDE_PROJECT_DIR/stopped ]; do sleep 0.05; done; touch $CLAUDE_PROJECT_DIR/settled; exit 2"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "touch $CLAUDE_PROJECT_DIR/stopped"}]}]
}}`

// TestRewakeParityWithClaudeCode runs asyncRewake hooks in -p in both
// programs: the one exiting 2 ran in the foreground, so the request after
// its call already carries its stderr (and not the rewake notice); the
// async one ran in the background and each program waited for it before
// it exited, waking nobody.
func TestRewakeParityWithClaudeCode(t *testing.T) {
	claude := realClaude(t)
	prompt := "rewake parity"
	allowed := []string{"--allowedTools", "Bash(echo:*)"}
	run := func(name string, command func(dir, home, cwd, url string) *exec.Cmd) {
		dir := t.TempDir()
		home, cwd := filepath.Join(dir, "home"), filepath.Join(dir, "proj")
		for path, content := range map[string]string{
			filepath.Join(cwd, ".claude", "settings.json"): rewakeSettings,
			filepath.Join(home, ".claude", ".keep"):        "",
		} {
			if err := writeFile(path, content); err != nil {
				t.Fatal(err)
			}
		}
		body := firstRequest(t, rewakeScript, "echo now", cwd, func(url string) *exec.Cmd {
			return command(dir, home, cwd, url)
		})
		if !strings.Contains(body, "rewake says no") || strings.Contains(body, "PREFIX rewake says no") {
			t.Errorf("%s: the request after the call does not carry the hook's stderr as a blocking hook's (nor only that)", name)
		}
		if _, err := os.Stat(filepath.Join(cwd, "settled")); err != nil {
			t.Errorf("%s exited before its async asyncRewake hook ended", name)
		}
	}
	run("claude", func(_, home, cwd, url string) *exec.Cmd {
		cmd := claudeCommand(t, claude, home, cwd, url, prompt)
		cmd.Args = append(slices.DeleteFunc(cmd.Args, func(a string) bool { return a == "--max-turns" || a == "1" }), allowed...)
		return cmd
	})
	run("csa-agent", func(dir, home, cwd, url string) *exec.Cmd {
		cmd := agentCommand(t, dir, home, cwd, url, prompt)
		cmd.Args = append(cmd.Args, allowed...)
		return cmd
	})
}
