package modelserver

import (
	"net/http"
	"strings"
	"testing"
)

// A turn that made several tool calls is one assistant turn, however each
// API spreads its calls and their results over messages or items.
func TestTurnWithSeveralCalls(t *testing.T) {
	bodies := map[string]string{
		"/v1/messages": `{"model":"m","messages":[{"role":"user","content":"please run"},
		 {"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"a"},
		  {"type":"tool_use","id":"1","name":"Bash","input":{}},{"type":"tool_use","id":"2","name":"Bash","input":{}}]},
		 {"role":"user","content":[{"type":"tool_result","tool_use_id":"1","content":"x"},{"type":"tool_result","tool_use_id":"2","content":"y"}]}]}`,
		"/v1/responses": `{"model":"m","input":[{"role":"user","content":"please run"},
		 {"type":"reasoning","id":"rs","summary":[]},
		 {"type":"function_call","call_id":"1","name":"bash","arguments":"{}"},{"type":"function_call","call_id":"2","name":"bash","arguments":"{}"},
		 {"type":"function_call_output","call_id":"1","output":"x"},{"type":"function_call_output","call_id":"2","output":"y"}]}`,
		"/v1/chat/completions": `{"model":"m","messages":[{"role":"user","content":"please run"},
		 {"role":"assistant","content":"a","tool_calls":[{"id":"1","type":"function","function":{"name":"bash","arguments":"{}"}},
		  {"id":"2","type":"function","function":{"name":"bash","arguments":"{}"}}]},
		 {"role":"tool","tool_call_id":"1","content":"x"},{"role":"tool","tool_call_id":"2","content":"y"}]}`,
		"/v1beta/models/m:generateContent": `{"contents":[{"role":"user","parts":[{"text":"please run"}]},
		 {"role":"model","parts":[{"text":"t","thought":true},{"functionCall":{"name":"bash","args":{}}},{"functionCall":{"name":"bash","args":{}}}]},
		 {"role":"user","parts":[{"functionResponse":{"name":"bash","response":{"output":"x"}}},{"functionResponse":{"name":"bash","response":{"output":"y"}}}]}]}`,
	}
	srv, base := startServer(t, wireScript)
	for path, body := range bodies {
		resp := post(t, base+path, body)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: HTTP %d", path, resp.StatusCode)
		}
	}
	for _, rec := range srv.Requests() {
		if rec.Turn != 1 || rec.Answer != "text" || !strings.Contains(rec.UserText, "please run") {
			t.Errorf("%s: turn %d answer %s", rec.API, rec.Turn, rec.Answer)
		}
	}
}
