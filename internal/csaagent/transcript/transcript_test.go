package transcript

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/llm"
)

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if !utf8.Valid(sc.Bytes()) {
			t.Fatalf("a line that is not UTF-8: %q", sc.Bytes())
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("a line that is not JSON: %v: %q", err, sc.Bytes())
		}
		out = append(out, m)
	}
	return out
}

// A turn with a tool call, written as Claude Code writes it: the prompt
// as text, the answer one block a line sharing its id and usage, the
// result with its tool's object; each line's parent the one before.
func TestClaudeCodeLines(t *testing.T) {
	dir := t.TempDir()
	s := New(dir, "sess", "/work")
	s.Message("", llm.UserText("do it"))
	s.Emit(event.Event{Kind: event.Usage, Usage: &llm.Usage{InputTokens: 10, OutputTokens: 3, CacheReadTokens: 2}, Model: "m1"})
	s.Message("", llm.Message{Role: llm.Assistant, Content: []llm.Block{{Type: llm.BlockText, Text: "on it"},
		{Type: llm.BlockToolUse, ID: "tu1", Name: "Bash", Input: json.RawMessage(`{"command":"x"}`)}}})
	s.Emit(event.Event{Kind: event.ToolFinished, ToolID: "tu1", Response: map[string]any{"stdout": "bad \xff byte"}})
	s.Message("", llm.Message{Role: llm.User, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: "tu1", Content: "bad \xff byte\nExit code: 0"}}})
	s.Message("", llm.Message{Role: llm.Assistant, Content: []llm.Block{{Type: llm.BlockText, Text: "done"}}})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, Path(dir, "sess"))
	if len(lines) != 5 {
		t.Fatalf("%d lines: %v", len(lines), lines)
	}
	var parent any
	for i, l := range lines {
		if l["parentUuid"] != parent || l["sessionId"] != "sess" || l["cwd"] != "/work" || l["isSidechain"] != false || l["timestamp"] == nil {
			t.Errorf("line %d: %v", i, l)
		}
		parent = l["uuid"]
	}
	msg := func(i int) map[string]any { return lines[i]["message"].(map[string]any) }
	if lines[0]["type"] != "user" || msg(0)["content"] != "do it" {
		t.Errorf("prompt line %v", lines[0])
	}
	a1, a2 := msg(1), msg(2)
	if lines[1]["type"] != "assistant" || a1["id"] != a2["id"] || a1["model"] != "m1" || a1["stop_reason"] != "tool_use" {
		t.Errorf("answer lines %v / %v", a1, a2)
	}
	u := a2["usage"].(map[string]any)
	if u["input_tokens"] != 10.0 || u["output_tokens"] != 3.0 || u["cache_read_input_tokens"] != 2.0 || u["cache_creation_input_tokens"] != 0.0 {
		t.Errorf("usage %v", u)
	}
	if b := a2["content"].([]any)[0].(map[string]any); b["type"] != "tool_use" || b["name"] != "Bash" || b["id"] != "tu1" {
		t.Errorf("tool_use block %v", b)
	}
	res := lines[3]
	if res["sourceToolAssistantUUID"] != lines[2]["uuid"] || res["toolUseResult"].(map[string]any)["stdout"] != "bad \uFFFD byte" {
		t.Errorf("result line %v", res)
	}
	if b := msg(3)["content"].([]any)[0].(map[string]any); b["tool_use_id"] != "tu1" || b["content"] != "bad \uFFFD byte\nExit code: 0" {
		t.Errorf("result block %v", b)
	}
	// The next response reported no usage: none is carried over.
	if msg(4)["stop_reason"] != "end_turn" || msg(4)["usage"].(map[string]any)["input_tokens"] != 0.0 {
		t.Errorf("last answer %v", msg(4))
	}

	// Resumed, the session continues its chain; a subagent has its own
	// file, a side chain.
	s = New(dir, "sess", "/work")
	s.Message("", llm.UserText("again"))
	s.Message("agent-1", llm.UserText("sub task"))
	s.Close()
	lines2 := readLines(t, Path(dir, "sess"))
	if len(lines2) != 6 || lines2[5]["parentUuid"] != lines[4]["uuid"] {
		t.Errorf("resumed: %v", lines2[5:])
	}
	sub := readLines(t, SubagentPath(dir, "sess", "agent-1"))
	if len(sub) != 1 || sub[0]["isSidechain"] != true || sub[0]["agentId"] != "agent-1" || sub[0]["parentUuid"] != nil {
		t.Errorf("subagent %v", sub)
	}
	if want := filepath.Join(dir, "transcripts", "sess", "subagents", "agent-agent-1.jsonl"); SubagentPath(dir, "sess", "agent-1") != want {
		t.Errorf("subagent path %s", SubagentPath(dir, "sess", "agent-1"))
	}
}
