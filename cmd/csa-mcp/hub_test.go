package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/proc"
)

// `csa-mcp hub` serves csa's own MCP server to two agents, each through
// `csa-mcp connect`, from one backend process; SIGTERM stops it all.
func TestHubThroughConnect(t *testing.T) {
	w := newWorld(t)
	h := startHub(t, w, "[servers.csa]\ncommand = "+quote(filepath.Join(bin, "csa-mcp"))+"\nargs = [\"server\"]\ncwd = "+quote(w.proj)+"\n")
	socket, hub := h.socket, h.cmd
	if fi, err := os.Stat(filepath.Dir(socket)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("socket directory: %v %v, want 0700", fi.Mode(), err)
	}
	sessions := []*mcp.ClientSession{h.connect(t, nil, "--only", "csa"), h.connect(t, nil, "--only", "csa")}
	if init := sessions[0].InitializeResult(); init == nil || init.ServerInfo.Name != "csa-mcp-hub" {
		t.Fatalf("initialize: %+v", init)
	}
	tools, err := sessions[1].ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, "run") || !slices.Contains(names, "list_sessions") {
		t.Fatalf("tools through the hub: %q", names)
	}
	for _, cs := range sessions {
		call(t, cs, "list_sessions", map[string]any{}, false)
	}
	// status: two clients, one backend with its pid and memory and the
	// two calls.
	rep := h.status(t)
	if rep.PID != hub.Process.Pid || rep.Clients != 2 || len(rep.Backends) != 1 || rep.Backends[0].Name != "csa" ||
		rep.Backends[0].PID == 0 || rep.Backends[0].RSS == 0 || rep.Backends[0].Calls != 2 {
		t.Fatalf("status: %+v", rep)
	}
	table, err := proc.ReadTable()
	if err != nil {
		t.Fatal(err)
	}
	if kids := table.Children(hub.Process.Pid); len(kids) != 1 {
		t.Fatalf("hub children %v: want one shared backend", kids)
	}
	backend := table.Children(hub.Process.Pid)[0]
	hub.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-h.exited:
		if err != nil {
			t.Fatalf("hub after SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("hub still running 10 s after SIGTERM")
	}
	if _, err := os.Stat(socket); !os.IsNotExist(err) {
		t.Fatalf("socket left behind: %v", err)
	}
	if proc.Alive(backend) {
		t.Fatalf("backend %d outlived the hub", backend)
	}
	// No hub: status says so, exit 3.
	st := exec.Command(filepath.Join(bin, "csa-mcp"), "status", "--socket", socket)
	if err := st.Run(); st.ProcessState == nil || st.ProcessState.ExitCode() != 3 {
		t.Fatalf("status without a hub: %v, want exit 3", err)
	}
}

func quote(s string) string { return `"` + s + `"` }

// waitListening waits until the hub accepts connections (or exits).
func waitListening(t *testing.T, socket string, exited <-chan error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := net.Dial("unix", socket); err == nil {
			c.Close()
			return
		}
		select {
		case err := <-exited:
			t.Fatalf("hub exited: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("hub not listening after 30 s")
		}
	}
}
