package hub

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/proc"
)

// serveHub serves src as csa-mcp hub does: Serve, then Close and Release.
// It returns the hub, its socket and a channel closed once it is gone.
func serveHub(t *testing.T, src Source, idle time.Duration) (*Hub, string, <-chan struct{}) {
	t.Helper()
	dir, err := os.MkdirTemp("", "hub") // socket paths are limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "run", "hub.sock")
	l, err := Listen(socket)
	if err != nil {
		t.Fatal(err)
	}
	h := NewWithSource(src, testLog{t})
	h.SetIdleExit(idle)
	gone := make(chan struct{})
	go func() {
		h.Serve(l)
		h.Close()
		l.Release()
		close(gone)
	}()
	t.Cleanup(func() {
		h.Close()
		<-gone
		os.RemoveAll(dir)
	})
	return h, socket, gone
}

// serverTOML is a [mcp.servers.NAME] table running the test backend with
// the MCPHUB_* settings env.
func serverTOML(t *testing.T, name string, env ...string) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	vars := []string{`MCPHUB_BACKEND = "1"`}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars = append(vars, fmt.Sprintf("%s = %q", k, v))
	}
	return fmt.Sprintf("[mcp.servers.%s]\ncommand = %q\nenv = { %s }\n", name, exe, strings.Join(vars, ", "))
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
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

// Servers come from csa's configuration: the global file's for everyone, a
// project file's only for clients of that project. A server defined alike
// in two projects is one backend; defined differently, two.
func TestProjectServersSeenOnlyByTheirProject(t *testing.T) {
	dir := t.TempDir()
	global := filepath.Join(dir, "cfg", "config.toml")
	write(t, global, serverTOML(t, "g", "MCPHUB_TOOLS=echo", "MCPHUB_NAME=g"))
	projA, projB, projC, projD := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c"), filepath.Join(dir, "d")
	write(t, filepath.Join(projA, ".csa", "config.toml"), serverTOML(t, "p", "MCPHUB_TOOLS=pid"))
	write(t, filepath.Join(projC, ".csa", "config.toml"), serverTOML(t, "p", "MCPHUB_TOOLS=pid"))
	write(t, filepath.Join(projD, ".csa", "config.toml"), serverTOML(t, "p", "MCPHUB_TOOLS=pid", "MCPHUB_NAME=other"))
	os.MkdirAll(projB, 0o700)
	h, socket, _ := serveHub(t, CSAConfig(global), 0)

	a := connect(t, socket, Hello{Project: projA}, nil)
	b := connect(t, socket, Hello{Project: projB}, nil)
	c := connect(t, socket, Hello{Project: projC}, nil)
	d := connect(t, socket, Hello{Project: projD}, nil)
	if got := toolNames(t, a); !slices.Equal(got, []string{"echo", "pid"}) {
		t.Fatalf("project a sees %q", got)
	}
	if got := toolNames(t, b); !slices.Equal(got, []string{"echo"}) {
		t.Fatalf("project b (no project servers) sees %q", got)
	}
	if got := mustCall(t, b, "echo", args{Text: "x"}); got != "g:x" {
		t.Fatalf("echo from b: %q", got)
	}
	pa, pc, pd := mustCall(t, a, "pid", args{}), mustCall(t, c, "pid", args{}), mustCall(t, d, "pid", args{})
	if pa != pc {
		t.Fatalf("p defined alike in a and c runs twice: %q, %q", pa, pc)
	}
	if strings.Fields(pa)[0] == strings.Fields(pd)[0] {
		t.Fatalf("p defined differently in d shares a's backend: %q", pd)
	}
	var ps []BackendStatus
	for _, s := range h.Status() {
		if s.Name == "p" {
			ps = append(ps, s)
		}
	}
	if len(ps) != 2 || ps[0].Definition == ps[1].Definition || ps[0].Clients+ps[1].Clients != 3 || ps[0].State != StateRunning {
		t.Fatalf("p backends: %+v", ps)
	}
}

// A changed file is read again for the next client; a connected client
// keeps what it saw, and a changed definition is a new backend.
func TestChangedConfigSeenByTheNextClient(t *testing.T) {
	dir := t.TempDir()
	global := filepath.Join(dir, "config.toml")
	write(t, global, serverTOML(t, "g", "MCPHUB_TOOLS=echo"))
	_, socket, _ := serveHub(t, CSAConfig(global), 0)
	first := connect(t, socket, Hello{}, nil)
	if got := toolNames(t, first); !slices.Equal(got, []string{"echo"}) {
		t.Fatalf("first client sees %q", got)
	}
	write(t, global, serverTOML(t, "g", "MCPHUB_TOOLS=echo", "MCPHUB_NAME=new")+serverTOML(t, "h", "MCPHUB_TOOLS=counter"))
	second := connect(t, socket, Hello{}, nil)
	if got := toolNames(t, second); !slices.Equal(got, []string{"counter", "echo"}) {
		t.Fatalf("second client, after the change, sees %q", got)
	}
	if got := mustCall(t, second, "echo", args{Text: "x"}); got != "new:x" {
		t.Fatalf("echo with the new definition: %q", got)
	}
	if got := mustCall(t, first, "echo", args{Text: "x"}); got != "x" {
		t.Fatalf("echo of the first client: %q", got)
	}
	if got := toolNames(t, first); !slices.Equal(got, []string{"echo"}) {
		t.Fatalf("first client, after the change, sees %q", got)
	}
}

// A bad configuration refuses the client at once, with the file and the
// key at fault; fixing it lets the next client in.
func TestBadConfigRefusesTheClient(t *testing.T) {
	dir := t.TempDir()
	global, proj := filepath.Join(dir, "config.toml"), filepath.Join(dir, "proj")
	projFile := filepath.Join(proj, ".csa", "config.toml")
	write(t, global, serverTOML(t, "g", "MCPHUB_TOOLS=echo"))
	write(t, projFile, "[mcp.servers.x]\ncomand = \"nope\"\n")
	_, socket, _ := serveHub(t, CSAConfig(global), 0)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := dial(t, socket, Hello{Project: proj})
	_, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: c, Writer: c}, nil)
	if err == nil || !strings.Contains(err.Error(), projFile) || !strings.Contains(err.Error(), "comand") {
		t.Fatalf("client of a project with a bad config: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the refusal took until the deadline")
	}
	t.Logf("refused: %v", err)
	// Another project is not affected.
	if got := toolNames(t, connect(t, socket, Hello{Project: dir}, nil)); !slices.Equal(got, []string{"echo"}) {
		t.Fatalf("other project sees %q", got)
	}
	write(t, projFile, serverTOML(t, "x", "MCPHUB_TOOLS=counter"))
	if got := toolNames(t, connect(t, socket, Hello{Project: proj}, nil)); !slices.Equal(got, []string{"counter", "echo"}) {
		t.Fatalf("after the fix: %q", got)
	}
}

// With no client for its idle time the hub closes; a connected client (not
// a status request) keeps it.
func TestIdleExit(t *testing.T) {
	h, socket, gone := serveHub(t, Static(&Config{Servers: map[string]ServerConfig{"t": server(t)}}), 200*time.Millisecond)
	cs := connect(t, socket, Hello{}, nil)
	pid := strings.Fields(mustCall(t, cs, "pid", args{}))[0]
	h.mu.Lock()
	armed := h.idle.t != nil
	h.mu.Unlock()
	if armed {
		t.Fatal("idle timer armed while a client is connected")
	}
	if _, err := AskStatus(socket, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	select {
	case <-gone:
	case <-time.After(30 * time.Second):
		t.Fatal("hub still serving 30 s after its last client left (idle exit 200ms)")
	}
	if _, err := os.Stat(socket); !os.IsNotExist(err) {
		t.Fatalf("socket after idle exit: %v", err)
	}
	var n int
	fmt.Sscan(pid, &n)
	if proc.Alive(n) {
		t.Fatalf("backend %d outlived the hub", n)
	}
}

// Stop: the hub answers, stops its backends, removes its socket and lets
// go of its life lock; Stop returns once it has.
func TestStop(t *testing.T) {
	_, socket, gone := serveHub(t, Static(&Config{Servers: map[string]ServerConfig{"t": server(t)}}), 0)
	cs := connect(t, socket, Hello{}, nil)
	var pid int
	fmt.Sscan(mustCall(t, cs, "pid", args{}), &pid)
	if err := Stop(socket, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	select {
	case <-gone:
	default:
		t.Fatal("Stop returned before the hub was gone")
	}
	if proc.Alive(pid) {
		t.Fatalf("backend %d alive after Stop", pid)
	}
	if err := Stop(socket, 5*time.Second); !errors.Is(err, ErrNoHub) {
		t.Fatalf("Stop with no hub: %v", err)
	}
}

// A socket file no hub answers on is replaced; one a hub answers on is not.
func TestListenReplacesAStaleSocket(t *testing.T) {
	dir, err := os.MkdirTemp("", "hub")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	socket := filepath.Join(dir, "hub.sock")
	dead, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	dead.(*net.UnixListener).SetUnlinkOnClose(false)
	dead.Close()
	l, err := Listen(socket)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	defer l.Release()
	if _, err := Listen(socket); !errors.Is(err, ErrHubRunning) {
		t.Fatalf("second Listen: %v, want ErrHubRunning", err)
	}
}

// A backend whose definition changed serves the clients that still see it,
// then is stopped once none does.
func TestSupersededBackendRetired(t *testing.T) {
	dir := t.TempDir()
	global := filepath.Join(dir, "config.toml")
	write(t, global, serverTOML(t, "g", "MCPHUB_TOOLS=pid"))
	h, socket, _ := serveHub(t, CSAConfig(global), 0)
	old := connect(t, socket, Hello{}, nil)
	var oldPid, newPid int
	fmt.Sscan(mustCall(t, old, "pid", args{}), &oldPid)
	write(t, global, serverTOML(t, "g", "MCPHUB_TOOLS=pid", "MCPHUB_NAME=changed"))
	fresh := connect(t, socket, Hello{}, nil)
	fmt.Sscan(mustCall(t, fresh, "pid", args{}), &newPid)
	if oldPid == newPid {
		t.Fatal("a changed definition shares the old backend")
	}
	// Still seen by the old client: kept, and it still answers.
	var again int
	fmt.Sscan(mustCall(t, old, "pid", args{}), &again)
	if again != oldPid || len(h.Status()) != 2 {
		t.Fatalf("old client answered by %d (was %d); backends %+v", again, oldPid, h.Status())
	}
	old.Close()
	deadline := time.Now().Add(30 * time.Second)
	for proc.Alive(oldPid) || len(h.Status()) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("superseded backend %d not retired: alive %v, backends %+v", oldPid, proc.Alive(oldPid), h.Status())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if s := h.Status(); s[0].PID != newPid {
		t.Fatalf("left: %+v, want the new backend %d", s, newPid)
	}
	fmt.Sscan(mustCall(t, fresh, "pid", args{}), &again)
	if again != newPid {
		t.Fatalf("new client answered by %d, want %d", again, newPid)
	}
}
