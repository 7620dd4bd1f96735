package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const appServerCommandsScript = `
[[rule]]
name = "status"
contains = "Status: report: ok"
  [[rule.step]]
  text = "status seen"
`

// A command's shell lines run in an app-server turn too: allowed by its
// allowed-tools, their output reaches the model; refused, the turn fails
// with Claude Code's message and nothing reaches the model.
func TestAppServerCommandShellLines(t *testing.T) {
	e := newAppServerEnv(t, appServerCommandsScript)
	for name, content := range map[string]string{
		"report.sh":                     "#!/bin/sh\necho 'report: ok'\n",
		".claude/commands/status.md":    "---\nallowed-tools: Bash(./report.sh:*)\n---\nStatus: !`./report.sh`\n",
		".claude/commands/unallowed.md": "Unallowed: !`./report.sh`\n",
	} {
		if err := writeFile(filepath.Join(e.work, name), content); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(e.work, "report.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := e.start(t)
	c.initialize()
	th := c.startThread(map[string]any{"cwd": e.work})

	turn, seen := c.completed(c.turn(th, "/status"))
	msg := items(seen, "item/completed", "agentMessage")
	if str(turn, "status") != "completed" || len(msg) != 1 || str(msg[0], "text") != "status seen" {
		t.Fatalf("allowed: turn %v, messages %v", turn, msg)
	}

	turn, _ = c.completed(c.turn(th, "/unallowed"))
	if str(turn, "status") != "failed" || !strings.Contains(str(turn["error"].(map[string]any), "message"),
		"/unallowed: Shell command permission check failed for pattern \"!`./report.sh`\"") {
		t.Fatalf("refused: turn %v", turn)
	}
	// One request reached the model: the allowed command's.
	if dumps, _ := os.ReadDir(e.dump); len(dumps) != 1 {
		t.Fatalf("%d requests reached the model, want 1", len(dumps))
	}
}
