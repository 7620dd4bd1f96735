package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// rewakeSettings has two asyncRewake hooks: one with its own prefix and
// summary that waits for a file "go", exits 2 and complains on stderr;
// one with the defaults that exits 2 with stdout only; and one exiting 0,
// which wakes nobody.
const rewakeSettings = `{"hooks": {
	"PostToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "command", "asyncRewake": true, "if": "Bash(echo one)", "rewakeMessage": "Check this:", "rewakeSummary": "a <summary> & more",
		 "command": "while [ ! -f go ]; do sleep 0.01; done; echo out; echo 'err line' >&2; exit 2"},
		{"type": "command", "asyncRewake": true, "if": "Bash(echo two)", "command": "echo 'only stdout'; exit 2"},
		{"type": "command", "asyncRewake": true, "if": "Bash(echo three)", "command": "echo fine; touch three"}]}]}}`

func rewakeEngine(t *testing.T, wakeable bool) *Engine {
	t.Helper()
	s, err := Parse([]byte(rewakeSettings), "test")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	e, err := New(s, Options{SessionID: "s1", Cwd: dir, ProjectDir: dir, Environ: os.Environ(), Wakeable: wakeable})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// In -p Claude Code runs an asyncRewake hook like any other: its exit 2
// blocks at once, and nothing is left to wake the model later.
func TestRewakeInPrintModeRunsInTheForeground(t *testing.T) {
	e := rewakeEngine(t, false)
	if err := os.WriteFile(filepath.Join(e.o.Cwd, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	after := e.AfterTool(context.Background(), bashCall(t, "echo one"), tool.Result{Output: "one"})
	if after.Context != "err line" {
		t.Fatalf("context %q, want the hook's stderr as a blocking hook's", after.Context)
	}
	e.Settle()
	if w := e.Wakes(); len(w) != 0 {
		t.Fatalf("woken in -p: %q", w)
	}
}

// In the REPL an asyncRewake hook runs in the background; its exit 2
// leaves Claude Code's notice, the next turn's message; exit 0 none.
func TestRewakeWakesTheModel(t *testing.T) {
	e := rewakeEngine(t, true)
	ctx := context.Background()
	// The hook waits for a file made after AfterTool returned: had
	// AfterTool waited for it, this would never end.
	if after := e.AfterTool(ctx, bashCall(t, "echo one"), tool.Result{Output: "one"}); after.Context != "" {
		t.Fatalf("a background hook answered at once: %q", after.Context)
	}
	if err := os.WriteFile(filepath.Join(e.o.Cwd, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	<-e.Woken()
	want := "<task-notification>\n<summary>a &lt;summary&gt; &amp; more</summary>\n</task-notification>\n" +
		"<system-reminder>\nCheck this: err line\n\n</system-reminder>"
	if w := e.Wakes(); len(w) != 1 || w[0] != want {
		t.Fatalf("notices %q, want [%q]", w, want)
	}

	e.AfterTool(ctx, bashCall(t, "echo three"), tool.Result{Output: "three"})
	e.AfterTool(ctx, bashCall(t, "echo two"), tool.Result{Output: "two"})
	<-e.Woken()
	e.Settle()
	if _, err := os.Stat(filepath.Join(e.o.Cwd, "three")); err != nil {
		t.Fatal("Settle returned before the hook ended")
	}
	want = "<task-notification>\n<summary>Stop hook feedback</summary>\n</task-notification>\n" +
		"<system-reminder>\nStop hook blocking error from command \"PostToolUse:Bash\": only stdout\n\n</system-reminder>"
	// A notice waiting when a call ends reaches the model still at
	// work with that result, marked as no message from the user.
	after := e.AfterTool(ctx, bashCall(t, "echo four"), tool.Result{Output: "four"})
	if !strings.HasPrefix(after.Context, "[SYSTEM NOTIFICATION - NOT USER INPUT]\n") || !strings.HasSuffix(after.Context, "\n"+want) {
		t.Fatalf("mid-turn context %q, want the notice %q", after.Context, want)
	}
	if w := e.Wakes(); len(w) != 0 {
		t.Fatalf("delivered twice: %q", w)
	}
}
