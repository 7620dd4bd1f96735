package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/loop"
	"github.com/csa-dev/csa/internal/csaagent/tool"
	"github.com/csa-dev/csa/internal/csaagent/tools"
)

// A hook's "if" condition is a permission rule: the hook runs only for
// the calls it matches, and never for an event without a call.
func TestIfConditions(t *testing.T) {
	e, _ := engine(t, `{"hooks": {
		"PreToolUse": [{"matcher": "*", "hooks": [
			{"type": "command", "command": "touch commit", "if": "Bash(git commit:*)"},
			{"type": "command", "command": "touch go-edit", "if": "Edit(*.go)"},
			{"type": "command", "command": "touch agent", "if": "Agent(reviewer)"},
			{"type": "command", "command": "touch broken", "if": "Bash(("},
			{"type": "command", "command": "touch always"}]}],
		"PostToolUse": [{"hooks": [{"type": "command", "command": "touch post-commit", "if": "Bash(git commit:*)"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "touch stop", "if": "Bash"}]}]}}`)
	dir := e.o.Cwd
	ran := func(name string) bool { _, err := os.Stat(filepath.Join(dir, name)); return err == nil }
	reset := func() {
		for _, n := range []string{"commit", "go-edit", "agent", "broken", "always", "post-commit", "stop"} {
			os.Remove(filepath.Join(dir, n))
		}
	}
	ctx := context.Background()

	e.BeforeTool(ctx, bashCall(t, "git status"))
	if ran("commit") || !ran("always") {
		t.Fatal("git status: the commit hook ran, or the plain one did not")
	}
	reset()
	c := bashCall(t, "git add . && git commit -m 'x'")
	e.BeforeTool(ctx, c)
	e.AfterTool(ctx, c, tool.Result{Output: "done"})
	if !ran("commit") || !ran("post-commit") || ran("go-edit") || ran("broken") {
		t.Fatal("git commit: the commit hooks did not run, or others did")
	}
	reset()
	edit, _ := tools.ByName("Edit")
	in, _ := json.Marshal(map[string]string{"file_path": filepath.Join(dir, "pkg", "a.go"), "old_string": "a", "new_string": "b"})
	e.BeforeTool(ctx, loop.Call{Tool: edit, Input: in})
	if !ran("go-edit") || ran("commit") {
		t.Fatal("Edit of a .go file: the Edit(*.go) hook did not run")
	}
	reset()
	in, _ = json.Marshal(map[string]string{"file_path": filepath.Join(dir, "a.txt"), "old_string": "a", "new_string": "b"})
	e.BeforeTool(ctx, loop.Call{Tool: edit, Input: in})
	if ran("go-edit") {
		t.Fatal("Edit of a .txt file ran the Edit(*.go) hook")
	}
	reset()
	// The subagent tool is Task here: a condition naming Agent holds.
	task, _ := tools.ByName("Task")
	in, _ = json.Marshal(map[string]string{"description": "d", "prompt": "p", "subagent_type": "reviewer"})
	e.BeforeTool(ctx, loop.Call{Tool: task, Input: in})
	if !ran("agent") {
		t.Fatal("Agent(reviewer) did not match the Task call")
	}
	reset()
	e.BeforeStop(ctx, loop.Who{}, false, "bye")
	if ran("stop") {
		t.Fatal("a Stop hook with a condition ran")
	}
}

// After a prompt every input carries its id (prompt_id); PostToolUse says
// how long the call took (duration_ms); SessionStart, as in Claude Code,
// has no permission_mode.
func TestPromptIDAndDuration(t *testing.T) {
	e, _ := engine(t, `{"hooks": {
		"SessionStart": [{"hooks": [{"type": "command", "command": "cat >> in.jsonl; echo >> in.jsonl"}]}],
		"PostToolUse": [{"hooks": [{"type": "command", "command": "cat >> in.jsonl; echo >> in.jsonl"}]}]}}`)
	ctx := context.Background()
	e.SessionStart(ctx, "startup")
	e.UserPromptSubmit(ctx, "go")
	c := bashCall(t, "ls")
	e.BeforeTool(ctx, c)
	e.AfterTool(ctx, c, tool.Result{Output: "x"})
	data, err := os.ReadFile(filepath.Join(e.o.Cwd, "in.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var start, post map[string]any
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &start) != nil || json.Unmarshal([]byte(lines[1]), &post) != nil {
		t.Fatalf("inputs %q", lines)
	}
	if _, ok := start["permission_mode"]; ok || start["prompt_id"] != nil {
		t.Errorf("SessionStart %v", start)
	}
	if id, _ := post["prompt_id"].(string); len(id) != 36 || post["duration_ms"] == nil || post["permission_mode"] != "default" {
		t.Errorf("PostToolUse %v", post)
	}
}
