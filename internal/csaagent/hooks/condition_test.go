package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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
