package mcp

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/mcp/mcptest"
)

// The npm server-everything over stdio: its tools are offered and answer;
// a server that cannot start, one that never answers (past its startup
// timeout), one missing a variable and a disabled one are reported and
// leave it working; closing leaves no server process alive.
func TestStdioServers(t *testing.T) {
	bin := mcptest.Require(t, mcptest.Everything)
	tag := "CSA_MCP_TEST=" + t.Name() + "-" + strings.ReplaceAll(t.TempDir(), "/", "_")
	k, v, _ := strings.Cut(tag, "=")
	env := map[string]string{k: v}
	m := Start([]Server{
		{Name: "everything", Type: TypeStdio, Command: bin, Env: env},
		{Name: "broken", Type: TypeStdio, Command: "/nonexistent/server"},
		{Name: "mute", Type: TypeStdio, Command: "sleep", Args: []string{"600"}, Env: env, StartupTimeout: 1e9},
		{Name: "unset", Type: TypeStdio, Command: "x", Problem: ".mcp.json: missing environment variables: NOPE"},
		{Name: "off", Type: TypeStdio, Command: bin, Disabled: true},
	}, Options{Cwd: t.TempDir()})
	closed := false
	defer func() {
		if !closed {
			m.Close()
		}
	}()
	st := m.Statuses()
	want := []string{StatusConnected, StatusFailed, StatusFailed, StatusFailed, StatusDisabled}
	for i, s := range st {
		if s.Status != want[i] {
			t.Errorf("%s: %+v, want %s", s.Name, s, want[i])
		}
	}
	if !strings.Contains(st[1].Error, "/nonexistent/server") || !strings.Contains(st[2].Error, "no answer within 1s") ||
		!strings.Contains(st[3].Error, "NOPE") {
		t.Errorf("failure messages: %+v", st)
	}
	var names []string
	for _, tl := range m.Tools() {
		names = append(names, tl.Name())
	}
	if !slices.Contains(names, "mcp__everything__echo") || !slices.Contains(names, "mcp__everything__get-sum") {
		t.Fatalf("tools %q", names)
	}
	echo := byName(m.Tools(), "mcp__everything__echo")
	if res := call(t, echo, `{"message":"hello from csa-agent"}`); res.IsError || !strings.Contains(res.Output, "hello from csa-agent") {
		t.Fatalf("echo: %+v", res)
	}
	// The server runs (tagged), the mute one was ended at its timeout.
	alive := mcptest.Tagged(tag)
	if len(alive) == 0 {
		t.Fatal("no tagged server process while connected: the leftover check below could not fail")
	}
	for _, pid := range alive {
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); strings.Contains(string(b), "sleep") {
			t.Errorf("the server that never answered is still running (pid %d)", pid)
		}
	}
	m.Close()
	closed = true
	waitFor(t, "no server process left", func() bool { return len(mcptest.Tagged(tag)) == 0 })
}
