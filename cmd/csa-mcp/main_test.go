package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/testkit/fakeagent"
)

// bin holds csa, csa-mcp and the fake agent, built for these tests: the
// MCP server runs the csa beside it, as installed.
var bin string

func TestMain(m *testing.M) {
	if log := os.Getenv(tapEnv); log != "" {
		os.Exit(tapMain(log))
	}
	if name := os.Getenv("CSAMCP_TEST_SERVER"); name != "" {
		os.Exit(testServer(name))
	}
	dir, err := os.MkdirTemp("", "csa-mcp-test")
	if err != nil {
		panic(err)
	}
	_, file, _, _ := runtime.Caller(0)
	build := exec.Command("go", "build", "-o", dir+string(os.PathSeparator), "./cmd/csa", "./cmd/csa-mcp", "./cmd/fakeagent")
	build.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "csa-mcp tests: go build:", err)
		os.Exit(1)
	}
	bin = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// world is an isolated csa (state, config pointing every tool at the fake
// agent, project) for MCP clients.
type world struct {
	dir, proj string
	env       []string
}

func newWorld(t *testing.T) *world {
	dir := t.TempDir()
	w := &world{dir: dir, proj: filepath.Join(dir, "proj")}
	cfg := filepath.Join(dir, "cfg")
	for _, d := range []string{w.proj, cfg} {
		os.MkdirAll(d, 0o700)
	}
	if err := os.WriteFile(filepath.Join(cfg, "config.toml"), []byte(fakeagent.Config(filepath.Join(bin, "fakeagent"))), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CSA_") && !strings.HasPrefix(kv, "XDG_") {
			w.env = append(w.env, kv)
		}
	}
	w.env = append(w.env, "HOME="+filepath.Join(dir, "home"), "CSA_STATE_DIR="+filepath.Join(dir, "state"),
		"CSA_CONFIG_HOME="+cfg, "XDG_RUNTIME_DIR="+filepath.Join(dir, "run"))
	return w
}

// connect starts csa-mcp server as an agent program would, with extra
// environment, and returns the client session.
func (w *world) connect(t *testing.T, extra ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "csa-mcp"), "server")
	cmd.Dir, cmd.Env = w.proj, append(append([]string(nil), w.env...), extra...)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured answer.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, wantErr bool) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	if res.IsError != wantErr {
		t.Fatalf("%s %v: is_error %v, want %v: %s", name, args, res.IsError, wantErr, strings.Join(text, "\n"))
	}
	out := map[string]any{}
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
	}
	out["_text"] = strings.Join(text, "\n")
	return out
}

func TestToolsRunAndFollowSessions(t *testing.T) {
	w := newWorld(t)
	cs := w.connect(t)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if got := strings.Join(names, ","); got != "kill,list_sessions,read_log,review,run,send,session_status,wait" {
		t.Fatalf("tools %s", got)
	}

	// A run waited for: its result.
	r := call(t, cs, "run", map[string]any{"prompt": "echo hello from the sub-agent", "tool": "codex"}, false)
	if r["status"] != "completed" || !strings.Contains(fmt.Sprint(r["result"]), "hello from the sub-agent") {
		t.Fatalf("run: %v", r)
	}
	done := fmt.Sprint(r["session_id"])

	// One started and left running, then stopped.
	s := call(t, cs, "run", map[string]any{"prompt": "sleep 300s", "tool": "codex", "wait": false}, false)
	live := fmt.Sprint(s["session_id"])
	if len(live) != 26 {
		t.Fatalf("spawn: %v", s)
	}
	if l := call(t, cs, "list_sessions", nil, false); !strings.Contains(l["_text"].(string), done) || !strings.Contains(l["_text"].(string), live) {
		t.Fatalf("list_sessions: %v", l["_text"])
	}
	st := call(t, cs, "session_status", map[string]any{"session_id": done}, false)
	if st["state"] != "completed" || st["tool"] != "codex" {
		t.Fatalf("session_status: %v", st)
	}
	if lg := call(t, cs, "read_log", map[string]any{"session_id": done}, false); !strings.Contains(lg["_text"].(string), "hello from the sub-agent") {
		t.Fatalf("read_log: %v", lg["_text"])
	}
	call(t, cs, "kill", map[string]any{"session_id": live}, false)
	// wait: a killed session is an answer (it failed), not a failed call.
	wt := call(t, cs, "wait", map[string]any{"session_ids": []string{live, done}, "timeout_seconds": 60}, false)
	if !strings.Contains(wt["_text"].(string), `"killed"`) {
		t.Fatalf("wait: %v", wt["_text"])
	}

	// Bad input: an error result the model can read, the server goes on.
	e := call(t, cs, "session_status", map[string]any{"session_id": "NOSUCHSESSION"}, true)
	if !strings.Contains(e["_text"].(string), "NOSUCHSESSION") {
		t.Fatalf("unknown session: %v", e["_text"])
	}
	// A missing prompt is refused, by the schema or the handler.
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run", Arguments: map[string]any{}}); err == nil && !res.IsError {
		t.Fatalf("run without a prompt was accepted: %+v", res)
	}
}

// A call made from inside a csa session makes a child of that session,
// under the recursion limit.
func TestCallsFromASessionMakeChildren(t *testing.T) {
	w := newWorld(t)
	parent := call(t, w.connect(t), "run", map[string]any{"prompt": "echo parent", "tool": "codex"}, false)
	pid := fmt.Sprint(parent["session_id"])

	inside := w.connect(t, "CSA_SESSION_ID="+pid, "CSA_DEPTH=0", "CSA_TOOL=codex")
	child := call(t, inside, "run", map[string]any{"prompt": "echo child", "tool": "claude-code"}, false)
	st := call(t, inside, "session_status", map[string]any{"session_id": fmt.Sprint(child["session_id"])}, false)
	if st["parent_id"] != pid || fmt.Sprint(st["depth"]) != "1" {
		t.Fatalf("child record: %v", st)
	}

	deep := w.connect(t, "CSA_SESSION_ID="+pid, "CSA_DEPTH=99", "CSA_TOOL=codex")
	refused := call(t, deep, "run", map[string]any{"prompt": "echo too deep", "tool": "codex"}, true)
	if !strings.Contains(refused["_text"].(string), "depth") {
		t.Fatalf("past the recursion limit: %v", refused["_text"])
	}
}

// `csa mcp-server` is the same server: csa hands its streams to the csa-mcp
// beside it.
func TestCSAMCPServerCommand(t *testing.T) {
	w := newWorld(t)
	cmd := exec.Command(filepath.Join(bin, "csa"), "mcp-server")
	cmd.Dir, cmd.Env = w.proj, w.env
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if init := cs.InitializeResult(); init == nil || init.ServerInfo.Name != "csa" {
		t.Fatalf("initialize: %+v", init)
	}
	r := call(t, cs, "run", map[string]any{"prompt": "echo through csa", "tool": "gemini-cli"}, false)
	if r["status"] != "completed" || !strings.Contains(fmt.Sprint(r["result"]), "through csa") {
		t.Fatalf("run: %v", r)
	}
}

// csa's MCP server behind the hub is one process, the hub's child, shared
// by every agent: the hub hands it each caller's session with the call, so
// a sub-agent an agent starts through it is still that agent's child, in
// the agent's project, under the depth limit; an agent outside csa starts
// a session of its own.
func TestCSAServerBehindTheHub(t *testing.T) {
	w := newWorld(t)
	parent := call(t, w.connect(t), "run", map[string]any{"prompt": "echo parent", "tool": "codex"}, false)
	pid := fmt.Sprint(parent["session_id"])
	h := startHub(t, w, "[servers.csa]\ncommand = "+quote(filepath.Join(bin, "csa"))+"\nargs = [\"mcp-server\"]\n")
	agent := func(env ...string) *mcp.ClientSession {
		cmd := exec.Command(filepath.Join(bin, "csa-mcp"), "connect", "--socket", h.socket, "--project", w.proj)
		cmd.Dir, cmd.Env, cmd.Stderr = w.proj, append(append([]string(nil), w.env...), env...), os.Stderr
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).
			Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	inside := agent("CSA_SESSION_ID="+pid, "CSA_DEPTH=0", "CSA_TOOL=codex")
	outside := agent()

	child := call(t, inside, "run", map[string]any{"prompt": "echo child", "tool": "claude-code"}, false)
	st := call(t, inside, "session_status", map[string]any{"session_id": fmt.Sprint(child["session_id"])}, false)
	if st["parent_id"] != pid || fmt.Sprint(st["depth"]) != "1" || st["project_root"] != w.proj {
		t.Fatalf("child of the agent's session: %v", st)
	}
	own := call(t, outside, "run", map[string]any{"prompt": "echo own", "tool": "claude-code"}, false)
	st = call(t, outside, "session_status", map[string]any{"session_id": fmt.Sprint(own["session_id"])}, false)
	if p, _ := st["parent_id"].(string); p != "" || fmt.Sprint(st["depth"]) != "0" || st["project_root"] != w.proj {
		t.Fatalf("session of an agent outside csa: %v", st)
	}
	if l := call(t, outside, "list_sessions", nil, false); !strings.Contains(l["_text"].(string), pid) {
		t.Fatalf("list_sessions from the agent's project: %v", l["_text"])
	}
	deep := agent("CSA_SESSION_ID="+pid, "CSA_DEPTH=99", "CSA_TOOL=codex")
	if r := call(t, deep, "run", map[string]any{"prompt": "echo too deep", "tool": "codex"}, true); !strings.Contains(r["_text"].(string), "depth") {
		t.Fatalf("past the recursion limit: %v", r["_text"])
	}
	if b := h.status(t).Backends; len(b) != 1 || b[0].Name != "csa" || b[0].Calls != 6 {
		t.Fatalf("backends %+v, want the one csa server for every agent", b)
	}
}
