package modelserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

const wireScript = `
[[rule]]
name = "write"
contains = "please write"
  [[rule.step]]
  text = "Writing the file now, in a few deltas."
  write_file = { path = "a.txt", content = "héllo\n" }
  [[rule.step]]
  text = "Done writing."

[[rule]]
name = "shell"
contains = "please run"
  [[rule.step]]
  shell = "echo hi > f"
  [[rule.step]]
  text = "Ran it."
`

func startServer(t *testing.T, script string) (*Server, string) {
	t.Helper()
	s, err := Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	srv := New(s, Options{})
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv, url
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

type event struct {
	name string
	data map[string]any
	raw  string
}

// readSSE decodes a whole event stream; data that is not JSON is kept raw.
func readSSE(t *testing.T, r io.Reader) []event {
	t.Helper()
	var out []event
	var cur event
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		switch {
		case line == "":
			if cur.raw != "" {
				_ = json.Unmarshal([]byte(cur.raw), &cur.data)
				out = append(out, cur)
			}
			cur = event{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.raw = strings.TrimPrefix(line, "data: ")
		}
	}
	return out
}

// get walks a decoded JSON value: string keys for objects, ints for arrays.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func names(evs []event) string {
	var out []string
	for _, e := range evs {
		out = append(out, e.name)
	}
	return strings.Join(out, ",")
}

func decodeArgs(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("tool arguments %q: %v", s, err)
	}
	return m
}

const anthropicWrite = `{"model":"claude-x","stream":true,
 "system":[{"type":"text","text":"Here is useful information:\nWorking directory: /w\n"}],
 "messages":[{"role":"user","content":[{"type":"text","text":"<system-reminder>ctx</system-reminder>"},{"type":"text","text":"please write"}]},
  {"role":"system","content":"agents"}],
 "tools":[{"name":"Read"},{"name":"Write"},{"name":"Bash"}]}`

func TestAnthropicStreamToolCall(t *testing.T) {
	srv, url := startServer(t, wireScript)
	resp := post(t, url+"/v1/messages?beta=true", anthropicWrite)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	evs := readSSE(t, resp.Body)
	want := "message_start,content_block_start,content_block_delta,content_block_delta,content_block_delta,content_block_stop," +
		"content_block_start,content_block_delta,content_block_delta,content_block_stop,message_delta,message_stop"
	if got := names(evs); got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	var text, args string
	for _, e := range evs {
		if e.data["type"] != e.name {
			t.Errorf("event %s carries type %v", e.name, e.data["type"])
		}
		if s, ok := get(e.data, "delta", "text").(string); ok {
			text += s
		}
		if s, ok := get(e.data, "delta", "partial_json").(string); ok {
			args += s
		}
	}
	if text != "Writing the file now, in a few deltas." {
		t.Errorf("text = %q", text)
	}
	if get(evs[6].data, "content_block", "name") != "Write" {
		t.Errorf("tool block %v", evs[6].data)
	}
	a := decodeArgs(t, args)
	if a["file_path"] != "/w/a.txt" || a["content"] != "héllo\n" {
		t.Errorf("Write args %v", a)
	}
	md := evs[len(evs)-2].data
	if get(md, "delta", "stop_reason") != "tool_use" || get(md, "usage", "output_tokens").(float64) <= 0 {
		t.Errorf("message_delta %v", md)
	}
	if get(evs[0].data, "message", "usage", "input_tokens").(float64) <= 0 {
		t.Errorf("message_start without input tokens: %v", evs[0].data)
	}
	rec := srv.Requests()[0]
	if rec.Rule != "write" || rec.Step != 1 || rec.Turn != 0 || rec.UserText != "please write" || rec.Answer != "tool:Write" || rec.Cwd != "/w" {
		t.Errorf("record %+v", rec)
	}
}

func TestAnthropicSecondTurnNonStreamed(t *testing.T) {
	srv, url := startServer(t, wireScript)
	body := `{"model":"claude-x","messages":[
	 {"role":"user","content":"please write"},
	 {"role":"assistant","content":[{"type":"text","text":"Writing"},{"type":"tool_use","id":"t1","name":"Write","input":{}}]},
	 {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]}`
	resp := post(t, url+"/v1/messages", body)
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if get(m, "content", 0, "text") != "Done writing." || m["stop_reason"] != "end_turn" {
		t.Errorf("answer %v", m)
	}
	if get(m, "usage", "input_tokens").(float64) <= 0 || get(m, "usage", "output_tokens").(float64) <= 0 {
		t.Errorf("usage %v", m["usage"])
	}
	if rec := srv.Requests()[0]; rec.Turn != 1 || rec.Step != 2 {
		t.Errorf("record %+v", rec)
	}
}

const codexRun = `{"model":"gpt-x","stream":true,"instructions":"be good","input":[
 {"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}]},
 {"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"}]},
 {"type":"message","role":"user","content":[{"type":"input_text","text":"please run"}]}],
 "tools":[{"type":"function","name":"exec_command"},{"type":"custom","name":"apply_patch"},{"type":"web_search"}]}`

func TestResponsesStreamToolCall(t *testing.T) {
	srv, url := startServer(t, wireScript)
	evs := readSSE(t, post(t, url+"/v1/responses", codexRun).Body)
	want := "response.created,response.output_item.added,response.output_item.done,response.completed"
	if got := names(evs); got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	item := evs[2].data["item"]
	if get(item, "type") != "function_call" || get(item, "name") != "exec_command" || get(item, "call_id") == "" {
		t.Fatalf("item %v", item)
	}
	if a := decodeArgs(t, get(item, "arguments").(string)); a["cmd"] != "echo hi > f" {
		t.Errorf("args %v", a)
	}
	done := evs[3].data
	if get(done, "response", "usage", "input_tokens").(float64) <= 0 || get(done, "response", "id") == "" {
		t.Errorf("response.completed %v", done)
	}
	rec := srv.Requests()[0]
	if rec.UserText != "please run" || rec.Cwd != "/w" || strings.Join(rec.Tools, ",") != "exec_command,apply_patch,web_search" {
		t.Errorf("record %+v", rec)
	}
}

func TestResponsesWriteThroughShell(t *testing.T) {
	_, url := startServer(t, wireScript)
	body := strings.Replace(codexRun, "please run", "please write", 1)
	evs := readSSE(t, post(t, url+"/v1/responses", body).Body)
	var text string
	var cmd string
	for _, e := range evs {
		if e.name == "response.output_text.delta" {
			text += e.data["delta"].(string)
		}
		if e.name == "response.output_item.done" && get(e.data, "item", "type") == "function_call" {
			cmd = decodeArgs(t, get(e.data, "item", "arguments").(string))["cmd"].(string)
		}
	}
	if text != "Writing the file now, in a few deltas." {
		t.Errorf("text %q", text)
	}
	if cmd != `printf '%s' 'héllo`+"\n"+`' > '/w/a.txt'` {
		t.Errorf("cmd %q", cmd)
	}
}

const opencodeWrite = `{"model":"scripted","stream":true,"stream_options":{"include_usage":true},"messages":[
 {"role":"system","content":"You are opencode.\nWorking directory: /w\n"},
 {"role":"user","content":"\"please write\""}],
 "tools":[{"type":"function","function":{"name":"bash"}},{"type":"function","function":{"name":"write"}}]}`

func TestChatStreamToolCall(t *testing.T) {
	_, url := startServer(t, wireScript)
	evs := readSSE(t, post(t, url+"/v1/chat/completions", opencodeWrite).Body)
	if len(evs) == 0 || evs[len(evs)-1].raw != "[DONE]" {
		t.Fatalf("stream does not end with [DONE]: %v", evs)
	}
	var text, args, name, finish string
	var usage any
	for _, e := range evs[:len(evs)-1] {
		if e.data["object"] != "chat.completion.chunk" {
			t.Errorf("chunk %v", e.raw)
		}
		d := get(e.data, "choices", 0, "delta")
		if s, ok := get(d, "content").(string); ok {
			text += s
		}
		if s, ok := get(d, "tool_calls", 0, "function", "name").(string); ok {
			name = s
		}
		if s, ok := get(d, "tool_calls", 0, "function", "arguments").(string); ok {
			args += s
		}
		if s, ok := get(e.data, "choices", 0, "finish_reason").(string); ok {
			finish = s
		}
		if u := e.data["usage"]; u != nil {
			usage = u
		}
	}
	if text != "Writing the file now, in a few deltas." || name != "write" || finish != "tool_calls" {
		t.Errorf("text %q, tool %q, finish %q", text, name, finish)
	}
	if a := decodeArgs(t, args); a["filePath"] != "/w/a.txt" {
		t.Errorf("args %v", a)
	}
	if get(usage, "prompt_tokens").(float64) <= 0 || get(usage, "completion_tokens").(float64) <= 0 {
		t.Errorf("usage %v", usage)
	}
}

func TestChatTitleCall(t *testing.T) {
	srv, url := startServer(t, wireScript)
	body := `{"model":"scripted","messages":[{"role":"system","content":"You are a title generator. You output ONLY a thread title."},
	 {"role":"user","content":"Generate a title for this conversation:\n"},{"role":"user","content":"please write"}]}`
	var m map[string]any
	if err := json.NewDecoder(post(t, url+"/v1/chat/completions", body).Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if get(m, "choices", 0, "message", "content") != "Scripted session" {
		t.Errorf("title answer %v", m)
	}
	if rec := srv.Requests()[0]; rec.Answer != "utility:title" || rec.Rule != "" {
		t.Errorf("record %+v", rec)
	}
}

const geminiShell = `{"contents":[
 {"role":"user","parts":[{"text":"<session_context>\n- **Workspace Directories:**\n  - /w\n</session_context>"},{"text":"please run"}]}],
 "tools":[{"functionDeclarations":[{"name":"write_file"},{"name":"run_shell_command"}]}]}`

func TestGeminiStreamToolCall(t *testing.T) {
	srv, url := startServer(t, wireScript)
	resp := post(t, url+"/v1beta/models/gemini-x:streamGenerateContent?alt=sse", geminiShell)
	raw, _ := io.ReadAll(resp.Body)
	if !bytes.Contains(raw, []byte("\r\n\r\n")) {
		t.Errorf("events not separated by CRLF: %q", raw)
	}
	evs := readSSE(t, bytes.NewReader(raw))
	if len(evs) != 1 {
		t.Fatalf("want one chunk, got %d", len(evs))
	}
	c := evs[0].data
	fc := get(c, "candidates", 0, "content", "parts", 0, "functionCall")
	if get(fc, "name") != "run_shell_command" || get(fc, "args", "command") != "echo hi > f" {
		t.Errorf("functionCall %v", fc)
	}
	if get(c, "candidates", 0, "finishReason") != "STOP" || get(c, "usageMetadata", "promptTokenCount").(float64) <= 0 {
		t.Errorf("chunk %v", c)
	}
	if rec := srv.Requests()[0]; rec.Model != "gemini-x" || rec.UserText != "please run" || rec.Cwd != "/w" {
		t.Errorf("record %+v", rec)
	}

	// The second turn streams its text over several chunks.
	second := strings.Replace(geminiShell, `]}],`, `]},
	 {"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{}}}]},
	 {"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{}}}]}],`, 1)
	evs = readSSE(t, post(t, url+"/v1beta/models/gemini-x:streamGenerateContent?alt=sse", second).Body)
	var text string
	for i, e := range evs {
		text += get(e.data, "candidates", 0, "content", "parts", 0, "text").(string)
		if last := i == len(evs)-1; (get(e.data, "candidates", 0, "finishReason") == "STOP") != last {
			t.Errorf("chunk %d finishReason %v", i, e.data)
		}
	}
	if text != "Ran it." {
		t.Errorf("text %q", text)
	}
}

func TestGeminiRouterCall(t *testing.T) {
	srv, url := startServer(t, wireScript)
	body := `{"contents":[{"role":"user","parts":[{"text":"please run"}]}],
	 "generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"OBJECT","properties":{
	  "complexity_reasoning":{"type":"STRING"},"complexity_score":{"type":"INTEGER"}}}}}`
	var m map[string]any
	if err := json.NewDecoder(post(t, url+"/v1beta/models/flash:generateContent", body).Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	var answer map[string]any
	text, _ := get(m, "candidates", 0, "content", "parts", 0, "text").(string)
	if err := json.Unmarshal([]byte(text), &answer); err != nil || answer["complexity_score"] == nil || answer["complexity_reasoning"] == nil {
		t.Errorf("router answer %q: %v", text, err)
	}
	if rec := srv.Requests()[0]; rec.Answer != "utility:router" {
		t.Errorf("record %+v", rec)
	}
}

func TestGeminiJSONSideCall(t *testing.T) {
	_, url := startServer(t, wireScript)
	body := `{"contents":[{"role":"user","parts":[{"text":"x"}]}],
	 "generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object","properties":{
	  "reasoning":{"type":"string"},"next_speaker":{"type":"string","enum":["model","user"]},"n":{"type":"number"},"ok":{"type":"boolean"}}}}}`
	var m map[string]any
	if err := json.NewDecoder(post(t, url+"/v1beta/models/flash:generateContent", body).Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	text := get(m, "candidates", 0, "content", "parts", 0, "text").(string)
	if text != `{"n":1,"next_speaker":"user","ok":false,"reasoning":"scripted"}` {
		t.Errorf("answer %s", text)
	}
}

// TestResponsesToolSearchThenNamespacedCall: Codex's deferred MCP tools
// are found with its tool_search (a tool_search_call item, which Codex
// runs) and called in their namespace.
func TestResponsesToolSearchThenNamespacedCall(t *testing.T) {
	_, url := startServer(t, `
[[rule]]
contains = "please sum"
  [[rule.step]]
  call = { name = "tool_search", args = { query = "sum" } }
  [[rule.step]]
  call = { namespace = "mcp__csa", name = "get_sum", args = { a = 1 } }
`)
	first := strings.Replace(codexRun, "please run", "please sum", 1)
	evs := readSSE(t, post(t, url+"/v1/responses", first).Body)
	item := evs[2].data["item"]
	if get(item, "type") != "tool_search_call" || get(item, "execution") != "client" || get(item, "call_id") == "" ||
		get(item, "arguments", "query") != "sum" {
		t.Fatalf("first answer %v", item)
	}
	second := strings.Replace(first, `"text":"please sum"}]}]`, `"text":"please sum"}]},
 {"type":"tool_search_call","call_id":"c1","execution":"client","arguments":{"query":"sum"}},
 {"type":"tool_search_output","call_id":"c1","execution":"client","tools":[]}]`, 1)
	evs = readSSE(t, post(t, url+"/v1/responses", second).Body)
	item = evs[2].data["item"]
	if get(item, "type") != "function_call" || get(item, "namespace") != "mcp__csa" || get(item, "name") != "get_sum" {
		t.Fatalf("second answer %v", item)
	}
}
