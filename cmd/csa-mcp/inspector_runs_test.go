package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Runs started through `csa mcp-server` and followed with its other tools,
// each call a separate MCP Inspector client (the TypeScript SDK), as an
// agent that calls run and, turns later, wait would make them.

// inspectCall calls tool with args given verbatim (--tool-args-json) and
// decodes the JSON text of its answer; an error result fails.
func inspectCall(t *testing.T, w *world, tool string, args map[string]any, out any) string {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	server := []string{filepath.Join(bin, "csa"), "mcp-server"}
	text := resultText(t, inspect(t, w, server, "--method", "tools/call", "--tool-name", tool, "--tool-args-json", string(b)))
	if out != nil {
		if err := json.Unmarshal([]byte(text), out); err != nil {
			t.Fatalf("%s %s: %v: %s", tool, b, err, text)
		}
	}
	return text
}

type waited struct {
	Sessions []struct {
		ID          string `json:"id"`
		Interactive bool   `json:"interactive"`
		State       string `json:"state"`
	} `json:"sessions"`
	TimedOut bool `json:"timed_out"`
}

// waitOne is the wait tool on one session (until: "" for its default),
// within the Inspector's 60 s request timeout.
func waitOne(t *testing.T, w *world, id, until string) waited {
	t.Helper()
	args := map[string]any{"session_ids": []string{id}, "timeout_seconds": 45}
	if until != "" {
		args["until"] = until
	}
	var wt waited
	inspectCall(t, w, "wait", args, &wt)
	if len(wt.Sessions) != 1 || wt.Sessions[0].ID != id {
		t.Fatalf("wait %s: %+v", id, wt)
	}
	return wt
}

// run with wait=false starts the same headless run as `csa run -d`: it
// ends by itself, and wait returns then with its status; the prompt
// arrives byte for byte.
func TestInspectorRunDetachedThenWait(t *testing.T) {
	w := newWorld(t)
	var started struct {
		SessionID string `json:"session_id"`
	}
	inspectCall(t, w, "run", map[string]any{"prompt": "sleep 1s; echo detached done", "tool": "codex", "wait": false}, &started)
	if len(started.SessionID) != 26 {
		t.Fatalf("run wait=false: %+v", started)
	}
	wt := waitOne(t, w, started.SessionID, "")
	if s := wt.Sessions[0]; wt.TimedOut || s.State != "completed" || s.Interactive {
		t.Fatalf("wait: %+v, want the headless run completed", wt)
	}
	var st struct {
		State  string `json:"state"`
		Result string `json:"result"`
	}
	inspectCall(t, w, "session_status", map[string]any{"session_id": started.SessionID}, &st)
	if st.State != "completed" || !strings.Contains(st.Result, "detached") {
		t.Fatalf("session_status: %+v", st)
	}
	// The prompt on its way: the fake's "prompt" directive answers with
	// it, line by line (Claude Code's result joins them).
	exact := "prompt\n  \"quoted\"; 'ü' \t$HOME -- --tool x\nlast line"
	var r struct {
		Result string `json:"result"`
	}
	inspectCall(t, w, "run", map[string]any{"prompt": exact, "tool": "claude-code"}, &r)
	if r.Result != exact {
		t.Fatalf("the prompt came as %q, want %q", r.Result, exact)
	}
}

// interactive=true, and only then, starts the tool's own interface in
// tmux; send types into it, wait with until follows its turns, and wait
// returns when the agent exits.
func TestInspectorInteractiveRunAndSend(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is needed:", err)
	}
	w := newWorld(t)
	server := []string{filepath.Join(bin, "csa"), "mcp-server"}
	if got := strings.Join(toolNames(t, inspect(t, w, server, "--method", "tools/list")), ","); !strings.Contains(got, "send") {
		t.Fatalf("tools: %s, want send among them", got)
	}
	var started struct {
		SessionID string `json:"session_id"`
	}
	inspectCall(t, w, "run", map[string]any{"prompt": "echo first turn", "tool": "claude-code", "interactive": true}, &started)
	id := started.SessionID
	t.Cleanup(func() {
		kill := exec.Command(filepath.Join(bin, "csa"), "kill", id)
		kill.Dir, kill.Env = w.proj, w.env
		kill.Run()
	})
	if wt := waitOne(t, w, id, "waiting_input"); !wt.Sessions[0].Interactive || wt.Sessions[0].State != "waiting_input" {
		t.Fatalf("after the first turn: %+v", wt)
	}
	inspectCall(t, w, "send", map[string]any{"session_id": id, "text": "echo second turn"}, nil)
	if wt := waitOne(t, w, id, "waiting_input"); wt.Sessions[0].State != "waiting_input" {
		t.Fatalf("after the second turn: %+v", wt)
	}
	if lg := inspectCall(t, w, "read_log", map[string]any{"session_id": id}, nil); !strings.Contains(lg, "second turn") {
		t.Fatalf("read_log: %s", lg)
	}
	inspectCall(t, w, "send", map[string]any{"session_id": id, "text": "exit 0"}, nil)
	if wt := waitOne(t, w, id, ""); wt.TimedOut || wt.Sessions[0].State != "completed" {
		t.Fatalf("after exit: %+v", wt)
	}
}
