package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/mcp/hub"
	"github.com/csa-dev/csa/internal/mcp/link"
	"github.com/csa-dev/csa/internal/proc"
)

// The hub's life as csa runs it: started on demand by `csa mcp connect`
// (through Ensure), servers from csa's configuration, idle exit, stop.

// hubWorld is a world whose hub exits after idle with no client. Its hub
// is stopped when the test ends.
func hubWorld(t *testing.T, idle string) *world {
	w := newWorld(t)
	w.appendConfig(t, fmt.Sprintf("[mcp]\nidle_exit = %q\n", idle))
	t.Cleanup(func() {
		if err := hub.Stop(w.socket(), 30*time.Second); err != nil && !errors.Is(err, hub.ErrNoHub) {
			t.Errorf("stopping the hub: %v", err)
		}
	})
	return w
}

func (w *world) socket() string { return filepath.Join(w.dir, "run", "csa", link.SocketName) }

func (w *world) globalConfig() string { return filepath.Join(w.dir, "cfg", "config.toml") }

func (w *world) appendConfig(t *testing.T, text string) {
	t.Helper()
	f, err := os.OpenFile(w.globalConfig(), os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// serverTable is [mcp.servers.NAME] running the test server NAME; variant
// makes a different definition of the same server.
func serverTable(t *testing.T, name, variant string) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("[mcp.servers.%s]\ncommand = %q\nenv = { CSAMCP_TEST_SERVER = %q, VARIANT = %q }\n", name, exe, name, variant)
}

// project makes a project root under the world with the given
// .csa/config.toml ("" for none).
func (w *world) project(t *testing.T, name, config string) string {
	t.Helper()
	root := filepath.Join(w.dir, name)
	if err := os.MkdirAll(filepath.Join(root, ".csa"), 0o700); err != nil {
		t.Fatal(err)
	}
	if config != "" {
		if err := os.WriteFile(filepath.Join(root, ".csa", "config.toml"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// agent is an agent program's MCP client of `csa mcp connect` run in dir.
func (w *world) agent(t *testing.T, dir string) (*mcp.ClientSession, error) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "csa"), "mcp", "connect")
	cmd.Dir, cmd.Env, cmd.Stderr = dir, w.env, os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func (w *world) mustAgent(t *testing.T, dir string) *mcp.ClientSession {
	t.Helper()
	cs, err := w.agent(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// csa runs bin/csa with args and returns its stdout and exit status.
func (w *world) csa(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "csa"), args...)
	cmd.Dir, cmd.Env = w.proj, w.env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("csa %v: %v", args, err)
	}
	return string(out) + stderr.String(), cmd.ProcessState.ExitCode()
}

func (w *world) status(t *testing.T) hub.Report {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "csa"), "mcp", "status", "--json")
	cmd.Env = w.env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("csa mcp status --json: %v", err)
	}
	var r hub.Report
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("csa mcp status --json: %v: %s", err, out)
	}
	return r
}

// hubStarts counts the hubs that have started listening (their first log
// line).
func (w *world) hubStarts(t *testing.T) int {
	b, err := os.ReadFile(filepath.Join(w.dir, "state", link.LogName))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), " listening on ")
}

func tools(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

// whoami is the pid of the server that answers NAME_whoami.
func whoami(t *testing.T, cs *mcp.ClientSession, name string) int {
	t.Helper()
	var pid int
	var got string
	fmt.Sscan(call(t, cs, name+"_whoami", nil, false)["_text"].(string), &got, &pid)
	if got != name || pid == 0 {
		t.Fatalf("%s_whoami answered by %q %d", name, got, pid)
	}
	return pid
}

// exited reports whether pid is gone or a zombie: the hub's parent is the
// csa-mcp connect that started it, which may not have reaped it yet.
func exited(pid int) bool {
	e, ok := proc.Stat(pid)
	return !ok || e.State == 'Z' || e.State == 'X'
}

// waitFor polls cond (bounded) until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s: %s", what)
		}
	}
}

// Agents starting at once with no hub start exactly one, share its
// backend, and the hub shows them; stop ends the hub and its backend.
func TestConcurrentConnectsStartOneHub(t *testing.T) {
	w := hubWorld(t, "10m")
	w.appendConfig(t, serverTable(t, "g", ""))
	const n = 4
	sessions := make([]*mcp.ClientSession, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { sessions[i], errs[i] = w.agent(t, w.proj) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := w.hubStarts(t); got != 1 {
		t.Fatalf("%d hubs started, want 1", got)
	}
	pid := whoami(t, sessions[0], "g")
	for _, cs := range sessions[1:] {
		if p := whoami(t, cs, "g"); p != pid {
			t.Fatalf("server g answered from %d and %d: not shared", pid, p)
		}
	}
	r := w.status(t)
	if r.Clients != n || len(r.Backends) != 1 {
		t.Fatalf("status: %+v", r)
	}
	if b := r.Backends[0]; b.Name != "g" || b.State != hub.StateRunning || b.PID != pid || b.Clients != n ||
		b.Calls != n || b.RSS == 0 || r.Uptime <= 0 {
		t.Fatalf("status backend: %+v", b)
	}
	out, code := w.csa(t, "mcp", "status")
	if code != 0 || !strings.Contains(out, fmt.Sprintf("hub pid %d", r.PID)) || !strings.Contains(out, "running") {
		t.Fatalf("csa mcp status: %d %s", code, out)
	}
	// stop: the hub and its backend are gone when it returns.
	if out, code := w.csa(t, "mcp", "stop"); code != 0 || !strings.Contains(out, "stopped") {
		t.Fatalf("csa mcp stop: %d %s", code, out)
	}
	if !exited(pid) || !exited(r.PID) {
		t.Fatalf("after stop: backend %d exited %v, hub %d exited %v", pid, exited(pid), r.PID, exited(r.PID))
	}
	if _, err := os.Stat(w.socket()); !os.IsNotExist(err) {
		t.Fatalf("socket after stop: %v", err)
	}
	if out, code := w.csa(t, "mcp", "stop"); code != 3 || !strings.Contains(out, "no MCP hub running") {
		t.Fatalf("csa mcp stop with no hub: %d %s", code, out)
	}
	if out, code := w.csa(t, "mcp", "logs"); code != 0 || !strings.Contains(out, "stop requested") {
		t.Fatalf("csa mcp logs: %d %s", code, out)
	}
}

// With no client for mcp.idle_exit the hub exits, stopping its backend
// and removing its socket.
func TestHubExitsWhenIdle(t *testing.T) {
	w := hubWorld(t, "1s")
	w.appendConfig(t, serverTable(t, "g", ""))
	cs := w.mustAgent(t, w.proj)
	backend := whoami(t, cs, "g")
	hub := w.status(t).PID
	cs.Close()
	waitFor(t, "the idle hub exited", func() bool { return exited(hub) })
	if _, code := w.csa(t, "mcp", "status"); code != 3 {
		t.Fatalf("status after idle exit: exit %d, want 3", code)
	}
	if !exited(backend) {
		t.Fatalf("backend %d outlived the idle hub", backend)
	}
	if _, err := os.Stat(w.socket()); !os.IsNotExist(err) {
		t.Fatalf("socket after idle exit: %v", err)
	}
	// The next agent starts a new one.
	if p := whoami(t, w.mustAgent(t, w.proj), "g"); p == backend {
		t.Fatal("same backend after the hub exited")
	}
	if got := w.hubStarts(t); got != 2 {
		t.Fatalf("%d hubs started, want 2", got)
	}
}

// A project's servers are seen by agents of that project only (the
// project found from the agent's directory); a changed configuration is
// seen by the next agent; a bad one refuses the agent with the file at
// fault.
func TestProjectsAndConfigChanges(t *testing.T) {
	w := hubWorld(t, "10m")
	w.appendConfig(t, serverTable(t, "g", ""))
	a := w.project(t, "a", serverTable(t, "p", ""))
	b := w.project(t, "b", "")
	if got := tools(t, w.mustAgent(t, filepath.Join(a))); !slices.Equal(got, []string{"g_whoami", "p_whoami"}) {
		t.Fatalf("agent in project a sees %q", got)
	}
	sub := filepath.Join(b, "src", "deep")
	os.MkdirAll(sub, 0o700)
	bAgent := w.mustAgent(t, sub)
	if got := tools(t, bAgent); !slices.Equal(got, []string{"g_whoami"}) {
		t.Fatalf("agent in project b sees %q", got)
	}

	// A server added to the global file: the next agent sees it; the one
	// connected keeps what it saw.
	w.appendConfig(t, serverTable(t, "h", ""))
	if got := tools(t, w.mustAgent(t, b)); !slices.Equal(got, []string{"g_whoami", "h_whoami"}) {
		t.Fatalf("next agent in b sees %q", got)
	}
	if got := tools(t, bAgent); !slices.Equal(got, []string{"g_whoami"}) {
		t.Fatalf("connected agent in b now sees %q", got)
	}

	// A broken project file refuses that project's agents, saying why.
	bad := filepath.Join(b, ".csa", "config.toml")
	if err := os.WriteFile(bad, []byte("[mcp.servers.x]\ncomand = \"typo\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := w.agent(t, b)
	if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "comand") {
		t.Fatalf("agent in a project with a bad config: %v", err)
	}
	if got := tools(t, w.mustAgent(t, a)); !slices.Equal(got, []string{"g_whoami", "h_whoami", "p_whoami"}) {
		t.Fatalf("agent in a, beside the broken b: %q", got)
	}
}

// A socket file left by a killed hub (no listener) is replaced.
func TestStaleSocketReplaced(t *testing.T) {
	w := hubWorld(t, "10m")
	w.appendConfig(t, serverTable(t, "g", ""))
	if err := os.MkdirAll(filepath.Dir(w.socket()), 0o700); err != nil {
		t.Fatal(err)
	}
	dead, err := net.Listen("unix", w.socket())
	if err != nil {
		t.Fatal(err)
	}
	dead.(*net.UnixListener).SetUnlinkOnClose(false)
	dead.Close()
	whoami(t, w.mustAgent(t, w.proj), "g")
	if got := w.hubStarts(t); got != 1 {
		t.Fatalf("%d hubs started, want 1", got)
	}
}
