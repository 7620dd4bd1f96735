package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/mcp/hub"
)

// hubProc is a `csa-mcp hub` running for a test, its log in a file shown
// when the test fails.
type hubProc struct {
	w      *world
	dir    string // short: socket paths are limited to 108 bytes
	socket string
	cmd    *exec.Cmd
	exited chan error
}

// startHub runs `csa-mcp hub` with conf as its config file (and args)
// and waits until it listens.
func startHub(t *testing.T, w *world, conf string, args ...string) *hubProc {
	t.Helper()
	dir, err := os.MkdirTemp("", "hub")
	if err != nil {
		t.Fatal(err)
	}
	h := &hubProc{w: w, dir: dir, socket: filepath.Join(dir, "run", "hub.sock"), exited: make(chan error, 1)}
	cfg, logPath := filepath.Join(dir, "hub.toml"), filepath.Join(dir, "hub.log")
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	h.cmd = exec.Command(filepath.Join(bin, "csa-mcp"), append([]string{"hub", "--socket", h.socket, "--config", cfg}, args...)...)
	h.cmd.Env, h.cmd.Stderr = w.env, logf
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logf.Close()
	waited := make(chan struct{})
	go func() {
		h.exited <- h.cmd.Wait()
		close(waited)
	}()
	t.Cleanup(func() {
		h.cmd.Process.Kill()
		<-waited
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("hub log:\n%s", b)
		}
		os.RemoveAll(dir)
	})
	waitListening(t, h.socket, h.exited)
	return h
}

// connect is an agent's MCP client: the go-sdk client over a `csa-mcp
// connect` process with args (--only, --project).
func (h *hubProc) connect(t *testing.T, opts *mcp.ClientOptions, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "csa-mcp"), append([]string{"connect", "--socket", h.socket}, args...)...)
	cmd.Env, cmd.Stderr = h.w.env, os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, opts).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// status is `csa-mcp status --json`.
func (h *hubProc) status(t *testing.T) hub.Report {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "csa-mcp"), "status", "--socket", h.socket, "--json")
	cmd.Env = h.w.env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("csa-mcp status: %v", err)
	}
	var r hub.Report
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("csa-mcp status: %v: %s", err, out)
	}
	return r
}

// backend is the status of the one backend called name (and project).
func (h *hubProc) backend(t *testing.T, name, project string) hub.BackendStatus {
	t.Helper()
	for _, b := range h.status(t).Backends {
		if b.Name == name && b.Project == project {
			return b
		}
	}
	return hub.BackendStatus{}
}

// tomlList is a TOML array of strings.
func tomlList(items ...string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
	}
	return "[" + strings.Join(q, ", ") + "]"
}
