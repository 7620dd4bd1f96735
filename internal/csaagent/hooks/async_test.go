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
