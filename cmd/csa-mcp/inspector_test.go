package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/mcp/mcptest"
)

// A third-party MCP client: the MCP Inspector's command-line mode (npm,
// make mcp-servers) drives csa's MCP server and the hub.

// inspect runs `mcp-inspector --cli SERVER... ARGS...` in the project and
// decodes its JSON answer. The Inspector gives the server only a few
// variables of its own environment (PATH, HOME, ...), so the world's CSA_*
// and XDG_* are passed with -e. Node 20 warns that the Inspector wants a
// newer Node; stderr is shown only on failure.
func inspect(t *testing.T, w *world, server []string, args ...string) map[string]any {
	t.Helper()
	argv := []string{"--cli"}
	for _, kv := range w.env {
		if strings.HasPrefix(kv, "CSA_") || strings.HasPrefix(kv, "XDG_") {
			argv = append(argv, "-e", kv)
		}
	}
	cmd := exec.Command(mcptest.Require(t, mcptest.Inspector), append(append(argv, server...), args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Dir, cmd.Stdout, cmd.Stderr = w.proj, &stdout, &stderr
	cmd.Env = append(append([]string(nil), w.env...), "MCP_CATALOG_PATH="+filepath.Join(t.TempDir(), "mcp.json"))
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcp-inspector %q: %v\nstdout: %s\nstderr: %s", args, err, stdout.Bytes(), stderr.Bytes())
	}
	var out map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("mcp-inspector %q: %v\nstdout: %s\nstderr: %s", args, err, stdout.Bytes(), stderr.Bytes())
	}
	return out
}

func toolNames(t *testing.T, list map[string]any) []string {
	var names []string
	tools, _ := list["tools"].([]any)
	for _, tl := range tools {
		if m, ok := tl.(map[string]any); ok {
			names = append(names, m["name"].(string))
		}
	}
	slices.Sort(names)
	return names
}

// resultText is the text of a tools/call result; an error result fails.
func resultText(t *testing.T, res map[string]any) string {
	t.Helper()
	if res["isError"] == true {
		t.Fatalf("error result: %v", res)
	}
	var s []string
	content, _ := res["content"].([]any)
	for _, c := range content {
		if m, ok := c.(map[string]any); ok && m["type"] == "text" {
			s = append(s, m["text"].(string))
		}
	}
	return strings.Join(s, "\n")
}

// `csa mcp-server` as the Inspector sees it: its tools, a list of
// sessions, and a run of the (fake) agent whose result comes back.
func TestInspectorDrivesCSAMCPServer(t *testing.T) {
	w := newWorld(t)
	server := []string{filepath.Join(bin, "csa"), "mcp-server"}
	names := toolNames(t, inspect(t, w, server, "--method", "tools/list"))
	if got := strings.Join(names, ","); got != "kill,list_sessions,read_log,review,run,send,session_status,wait" {
		t.Fatalf("tools: %s", got)
	}
	run := resultText(t, inspect(t, w, server, "--method", "tools/call", "--tool-name", "run",
		"--tool-arg", "prompt=echo hello from the inspector", "--tool-arg", "tool=codex"))
	if !strings.Contains(run, "hello from the inspector") || !strings.Contains(run, "completed") {
		t.Fatalf("run: %s", run)
	}
	var r struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(run), &r); err != nil || len(r.SessionID) != 26 {
		t.Fatalf("run's answer %q: %v", run, err)
	}
	list := resultText(t, inspect(t, w, server, "--method", "tools/call", "--tool-name", "list_sessions"))
	if !strings.Contains(list, r.SessionID) {
		t.Fatalf("list_sessions does not show the run %s: %s", r.SessionID, list)
	}
}

// The hub as the Inspector sees it through `csa-mcp connect`: a real
// server's tools and a call answered by it.
func TestInspectorDrivesTheHub(t *testing.T) {
	w := newWorld(t)
	h := startHub(t, w, everythingConf(t, "everything", ""))
	server := []string{filepath.Join(bin, "csa-mcp"), "connect", "--socket", h.socket}
	if names := toolNames(t, inspect(t, w, server, "--method", "tools/list")); !slices.Contains(names, "echo") ||
		!slices.Contains(names, "trigger-long-running-operation") {
		t.Fatalf("tools through the hub: %q", names)
	}
	got := resultText(t, inspect(t, w, server, "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=through the hub"))
	if got != "Echo: through the hub" {
		t.Fatalf("echo through the hub: %q", got)
	}
	if b := h.backend(t, "everything", ""); b.Calls != 1 || b.PID == 0 {
		t.Fatalf("backend: %+v, want the one call", b)
	}
}
