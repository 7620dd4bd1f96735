package hub

import (
	"encoding/json"
	"strings"
	"testing"
)

// Only a tools/call of a client with a Caller carries it, beside the
// call's own _meta; the server's name says whether it is csa's.
func TestWithCaller(t *testing.T) {
	cl := &client{hello: Hello{Caller: &Caller{Env: map[string]string{"CSA_SESSION_ID": "S1"}, Cwd: "/p"}}}
	params := json.RawMessage(`{"name":"run","arguments":{},"_meta":{"progressToken":"csa-hub-1"}}`)
	got := string(withCaller(&call{cl: cl, method: "tools/call", params: params}))
	for _, want := range []string{`"dev.csa/caller":{"env":{"CSA_SESSION_ID":"S1"},"cwd":"/p"}`, `"progressToken":"csa-hub-1"`, `"name":"run"`} {
		if !strings.Contains(got, want) {
			t.Errorf("tools/call params %s lack %s", got, want)
		}
	}
	if got := withCaller(&call{cl: cl, method: "prompts/get", params: params}); string(got) != string(params) {
		t.Errorf("prompts/get params changed: %s", got)
	}
	if got := withCaller(&call{cl: &client{}, method: "tools/call", params: params}); string(got) != string(params) {
		t.Errorf("a client without a caller: params changed: %s", got)
	}
	if serverName(json.RawMessage(`{"serverInfo":{"name":"csa","version":"x"}}`)) != CSAServerName || serverName(nil) != "" {
		t.Error("serverName")
	}
}
