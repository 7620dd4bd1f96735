package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// An async hook does not hold the call up and cannot decide it; what it
// says reaches the model with the next result; one still running when
// the session ends is killed.
func TestAsyncHooks(t *testing.T) {
	e, stderr := engine(t, `{"hooks": {
		"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "async": true, "if": "Bash(echo one)",
			 "command": "while [ ! -f go ]; do sleep 0.01; done; echo '{\"async\": true}'; echo '{\"systemMessage\": \"async says hi\", \"decision\": \"block\", \"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"additionalContext\": \"async context\"}}'; exit 2"},
			{"type": "command", "async": true, "if": "Bash(echo two)", "command": "sleep 600; touch late"}]}]}}`)
	dir := e.o.Cwd
	ctx := context.Background()

	// The hook waits for a file made after BeforeTool returned: had
	// BeforeTool waited for it, this would never end.
	if v := e.BeforeTool(ctx, bashCall(t, "echo one")); v.Decision != "" || v.Context != "" {
		t.Fatalf("an async hook decided: %+v", v)
	}
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	e.bg.wg.Wait()
	after := e.AfterTool(ctx, bashCall(t, "echo one"), tool.Result{Output: "one"})
	if after.Context != "async says hi\nasync context" {
		t.Fatalf("context with the next result %q", after.Context)
	}
	if again := e.AfterTool(ctx, bashCall(t, "echo one"), tool.Result{Output: "one"}); again.Context != "" {
		t.Fatalf("said twice: %q", again.Context)
	}
	if !strings.Contains(stderr.String(), "async says hi") || !strings.Contains(stderr.String(), "exit 2") {
		t.Fatalf("stderr %q", stderr)
	}

	e.BeforeTool(ctx, bashCall(t, "echo two"))
	e.Close()
	if _, err := os.Stat(filepath.Join(dir, "late")); err == nil {
		t.Fatal("the running async hook was not killed at Close")
	}
}

// A hook not marked async that answers {"async": true} on its first line
// goes on in the background, as in Claude Code: the event is not held up
// (the hook waits for a file made after it returned), and what it says
// at its end reaches the model later. One that goes on past its
// asyncTimeout is killed.
func TestHookGoesAsyncAtRunTime(t *testing.T) {
	e, stderr := engine(t, `{"hooks": {
		"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "if": "Bash(echo one)",
			 "command": "echo '{\"async\": true, \"asyncTimeout\": 600000}'; while [ ! -f go ]; do sleep 0.01; done; echo '{\"systemMessage\": \"set up\", \"decision\": \"block\"}'"},
			{"type": "command", "if": "Bash(echo two)",
			 "command": "echo '{\"async\": true, \"asyncTimeout\": 50}'; while [ ! -f never ]; do sleep 0.01; done"}]}]}}`)
	dir := e.o.Cwd
	ctx := context.Background()
	if v := e.BeforeTool(ctx, bashCall(t, "echo one")); v.Decision != "" {
		t.Fatalf("a hook gone async decided: %+v", v)
	}
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	e.bg.wg.Wait()
	if after := e.AfterTool(ctx, bashCall(t, "echo one"), tool.Result{Output: "one"}); after.Context != "set up" {
		t.Fatalf("context with the next result %q", after.Context)
	}
	e.BeforeTool(ctx, bashCall(t, "echo two"))
	e.bg.wg.Wait() // ends only because the 50 ms asyncTimeout kills it
	if !strings.Contains(stderr.String(), "timed out") {
		t.Fatalf("stderr %q", stderr)
	}
	if strings.Contains(stderr.String(), "invalid JSON") {
		t.Fatalf("the async line was read as the answer: %q", stderr)
	}
	e.Close()
}
