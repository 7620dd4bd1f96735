package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hookScript asks for an rm -rf; the hook's message reaching the model
// is what rule "blocked-seen" needs.
const hookScript = `
[[rule]]
name = "blocked-seen"
contains = "e2e hooks: clean up"
body = "rm -rf is not allowed here"
  [[rule.step]]
  text = "unused: turn 0 never carries the hook's message"
  [[rule.step]]
  text = "Could not clean up: the hook said no."

[[rule]]
name = "start"
contains = "e2e hooks: clean up"
  [[rule.step]]
  shell = "rm -rf build"
  [[rule.step]]
  text = "the hook's message never reached the model"
`

// blockRM is a PreToolUse hook as written for Claude Code: it reads the
// call on stdin and exits 2, with its reason on stderr, when the command
// holds rm -rf.
const blockRM = `#!/bin/sh
if grep -Eq '"command" *: *"[^"]*rm -rf'; then
  echo 'rm -rf is not allowed here: delete files one by one' >&2
  exit 2
fi
exit 0
`

const hookSettings = `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "sh \"$CLAUDE_PROJECT_DIR/.claude/hooks/block-rm.sh\""}]}]}}
`

// TestHookParityWithClaudeCode gives the real Claude Code and csa-agent the
// same project, whose .claude/settings.json holds one hook written for
// Claude Code: for both it blocks the same rm -rf, the directory
// survives, and the hook's reason reaches the model.
func TestHookParityWithClaudeCode(t *testing.T) {
	for _, tc := range []struct{ tool, model string }{{"claude-code", ""}, {"csa-agent", "anthropic/claude-hooks"}} {
		t.Run(tc.tool, func(t *testing.T) {
			w := newWorld(t, hookScript)
			for name, content := range map[string]string{
				".claude/settings.json":     hookSettings,
				".claude/hooks/block-rm.sh": blockRM,
				"build/out.txt":             "built\n",
			} {
				p := filepath.Join(w.proj, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := []string{"run", "--json", "--tool", tc.tool}
			if tc.model != "" {
				args = append(args, "--model", tc.model)
			}
			r := w.run(0, append(args, "e2e hooks: clean up the build directory")...)
			if r.Status != "completed" || !strings.Contains(r.Result, "Could not clean up: the hook said no.") {
				t.Fatalf("%+v%s", r, w.requests())
			}
			if _, err := os.Stat(filepath.Join(w.proj, "build", "out.txt")); err != nil {
				t.Fatalf("the rm -rf ran: %v", err)
			}
			if !w.matched("blocked-seen") {
				t.Fatalf("the hook's reason never reached the model:%s", w.requests())
			}
		})
	}
}
