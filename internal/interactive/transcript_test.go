package interactive

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func TestTranscriptClaudeCodexAndCSAAgent(t *testing.T) {
	dir := t.TempDir()
	claude := filepath.Join(dir, "c.jsonl")
	os.WriteFile(claude, []byte(`{"type":"user","message":{"role":"user","content":"say hi"}}
{"type":"user","isMeta":true,"message":{"role":"user","content":"meta"}}
{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"hi there"}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"x"}]}}
{"type":"system","subtype":"turn_duration"}
{"type":"assistant","message":{"content":[{"type":"text","text":"torn`), 0o600)
	text, next, err := Transcript(claude, 0)
	if err != nil {
		t.Fatal(err)
	}
	if text != "> say hi\nhi there\n" {
		t.Fatalf("claude text %q", text)
	}
	// The torn last line is left for the next call.
	if data, _ := os.ReadFile(claude); next >= int64(len(data)) {
		t.Fatalf("next %d consumed the torn line", next)
	}
	f, _ := os.OpenFile(claude, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(` line"}]}}` + "\n")
	f.Close()
	text, _, _ = Transcript(claude, next)
	if text != "torn line\n" {
		t.Fatalf("continued text %q", text)
	}

	codex := filepath.Join(dir, "x.jsonl")
	os.WriteFile(codex, []byte(`{"type":"session_meta","payload":{"id":"t1"}}
{"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"be nice"}]}}
{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}]}}
{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix it"}]}}
{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage"}}}
{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}}
{"type":"event_msg","payload":{"type":"task_complete"}}
`), 0o600)
	if text, _, _ := Transcript(codex, 0); text != "> fix it\ndone\n" {
		t.Fatalf("codex text %q", text)
	}

	agent := filepath.Join(dir, "a.jsonl")
	os.WriteFile(agent, []byte(`{"kind":"meta","time":"2026-01-01T00:00:00Z","model":"anthropic/m","cwd":"/p"}
{"kind":"message","time":"2026-01-01T00:00:01Z","message":{"role":"user","content":[{"type":"text","text":"list files"}]}}
{"kind":"message","time":"2026-01-01T00:00:02Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"Looking."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}
{"kind":"message","time":"2026-01-01T00:00:03Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.go"}]}}
{"kind":"event","time":"2026-01-01T00:00:03Z","event":{"kind":"tool_end"}}
{"kind":"message","time":"2026-01-01T00:00:04Z","message":{"role":"assistant","content":[{"type":"text","text":"a.go"}]}}
`), 0o600)
	if text, _, _ := Transcript(agent, 0); text != "> list files\nLooking.\na.go\n" {
		t.Fatalf("csa-agent text %q", text)
	}
}

func TestPaneText(t *testing.T) {
	raw := []byte("\x1b[?2004h\x1b]0;title\x07hello\r\n\x1b[31mred\x1b[0m\r\n> \x1b[")
	text, n := PaneText(raw)
	if text != "hello\nred\n> " {
		t.Fatalf("text %q", text)
	}
	if n != len(raw)-2 {
		t.Fatalf("consumed %d of %d: an incomplete escape must wait", n, len(raw))
	}
}

func TestAwaitAnswer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(path, []byte(`{"type":"user","message":{"content":"q"}}`+"\n"), 0o600)
	msg := "a <b> & \"c\" — ünï\nline two"
	go func() {
		time.Sleep(50 * time.Millisecond)
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		// As Node's JSON.stringify writes it: no HTML escaping.
		f.WriteString(`{"type":"assistant","message":{"content":[{"type":"text","text":"a <b> & \"c\" — ünï\nline two"}]}}` + "\n")
		f.Close()
	}()
	t0 := time.Now()
	if !AwaitAnswer(path, msg) || time.Since(t0) > time.Second {
		t.Fatalf("answer not seen (%s)", time.Since(t0))
	}
	if !AwaitAnswer("", msg) || !AwaitAnswer(path, "") {
		t.Fatal("nothing to wait for must not wait")
	}
}
