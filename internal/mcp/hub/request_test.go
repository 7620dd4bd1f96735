package hub

import "testing"

// TestRequestLine: the status and stop requests are the bytes they were
// when spelled by hand, so that a csa-mcp and a hub of another build still
// understand each other.
func TestRequestLine(t *testing.T) {
	for _, m := range []string{StatusMethod, StopMethod} {
		if got, want := string(request(m)), `{"jsonrpc":"2.0","id":1,"method":"`+m+`"}`+"\n"; got != want {
			t.Errorf("request(%s) = %q, want %q", m, got, want)
		}
	}
}
