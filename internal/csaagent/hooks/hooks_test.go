package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/loop"
	"github.com/csa-dev/csa/internal/csaagent/tools"
)

func engine(t *testing.T, settings string) (*Engine, *bytes.Buffer) {
	t.Helper()
	s, err := Parse([]byte(settings), "test")
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	dir := t.TempDir()
	e, err := New(s, Options{SessionID: "s1", Cwd: dir, ProjectDir: dir, Environ: os.Environ(), Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	return e, &stderr
}

func bashCall(t *testing.T, command string) loop.Call {
	bash, _ := tools.ByName("Bash")
	in, _ := json.Marshal(map[string]string{"command": command, "description": "d"})
	return loop.Call{ID: "t1", Tool: bash, Input: in}
}

// answerHook is a hook printing answer.
func answerHook(answer string) string {
	b, _ := json.Marshal(map[string]string{"type": "command", "command": "echo '" + answer + "'"})
	return string(b)
}

func TestDenyWinsAndInputsApplyInOrder(t *testing.T) {
	e, _ := engine(t, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
		`+answerHook(`{"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "one", "timeout": 5}}}`)+`,
		`+answerHook(`{"hookSpecificOutput": {"permissionDecision": "ask", "updatedInput": {"command": "two"}}}`)+`]}]}}`)
	v := e.BeforeTool(context.Background(), bashCall(t, "orig"))
	var in map[string]any
	json.Unmarshal(v.Input, &in)
	if v.Decision != loop.Ask || in["command"] != "two" || in["timeout"] != 5.0 || in["description"] != "d" {
		t.Fatalf("verdict %+v, input %v", v, in)
	}

	e, _ = engine(t, `{"hooks": {"PreToolUse": [{"hooks": [
		`+answerHook(`{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no"}}`)+`,
		`+answerHook(`{"hookSpecificOutput": {"permissionDecision": "allow", "additionalContext": "ctx"}}`)+`]}]}}`)
	v = e.BeforeTool(context.Background(), bashCall(t, "orig"))
	if v.Decision != loop.Deny || v.Reason != "no" || v.Input != nil || v.Context != "ctx" {
		t.Fatalf("verdict %+v", v)
	}
}

func TestExitCodes(t *testing.T) {
	e, stderr := engine(t, `{"hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": "exit 2"}]},
		{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo broken >&2; exit 1"}]}]}}`)
	if v := e.BeforeTool(context.Background(), bashCall(t, "ls")); v.Decision != "" {
		t.Fatalf("a failing hook decided: %+v", v)
	}
	if !strings.Contains(stderr.String(), "failed (exit 1): broken") {
		t.Fatalf("stderr %q", stderr)
	}
	read, _ := tools.ByName("Read")
	if v := e.BeforeTool(context.Background(), loop.Call{Tool: read, Input: json.RawMessage(`{}`)}); v.Decision != loop.Deny || v.Reason == "" {
		t.Fatalf("exit 2 did not block: %+v", v)
	}
}

func TestMatchers(t *testing.T) {
	for _, tc := range []struct {
		matcher, subject string
		want             bool
	}{
		{"", "Bash", true}, {"*", "Bash", true}, {"Bash", "Bash", true}, {"Edit", "NotebookEdit", false},
		{"Edit|Write", "Write", true}, {"mcp__.*", "mcp__fs__read", true}, {"mcp__.*", "Read", false},
		// The subagent tool: Task here, Agent in Claude Code now; a
		// matcher of either name fires, alone, in a list or a pattern.
		{"Task", "Task", true}, {"Agent", "Task", true}, {"Bash|Agent", "Task", true}, {"^Age.*", "Task", true},
		{"Agent", "Bash", false}, {"Task", "Agent", false},
	} {
		m, err := compileMatcher(tc.matcher)
		if err != nil || m(tc.subject) != tc.want {
			t.Errorf("matcher %q on %q: %v (err %v), want %v", tc.matcher, tc.subject, m(tc.subject), err, tc.want)
		}
	}
}

// Claude Code's own files may hold what csa-agent lacks: left out there,
// errors where the user wrote for csa-agent.
func TestClaudeCodeFilesAreRunAsFarAsPossible(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	content := `{"model": "x", "hooks": {"PermissionDenied": [{"hooks": [{"type": "command", "command": "a"}]}],
		"Stop": [{"hooks": [{"type": "prompt", "prompt": "p"}, {"type": "command", "command": "b"}]}]}}`
	os.WriteFile(path, []byte(content), 0o644)
	s, err := ReadFile(path)
	if err != nil || len(s) != 1 || len(s[Stop]) != 1 || len(s[Stop][0].Hooks) != 1 || s[Stop][0].Hooks[0].Command != "b" {
		t.Fatalf("%v %+v", err, s)
	}
	if _, err := ReadFlag(content); err == nil || !strings.Contains(err.Error(), `unknown event "PermissionDenied"`) ||
		!strings.Contains(err.Error(), `hook type "prompt"`) {
		t.Fatalf("--settings: %v", err)
	}
	if s, err := ReadFile(filepath.Join(t.TempDir(), "none.json")); err != nil || s != nil {
		t.Fatalf("a missing file: %v %v", s, err)
	}
}
