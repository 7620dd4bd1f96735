package link

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/csa-dev/csa/internal/proc"
)

// This test binary is also the hub Ensure starts: with MCPLINK_FAKE_HUB
// set it records its start in $MCPLINK_STARTS and listens on --socket
// ("serve"), or fails at once ("fail"). Ensure's concern is starting one
// hub and waiting for it; the real hub is tested in cmd/csa-mcp.
func TestMain(m *testing.M) {
	if mode := os.Getenv("MCPLINK_FAKE_HUB"); mode != "" && len(os.Args) == 4 && os.Args[1] == "hub" {
		os.Exit(fakeHub(mode, os.Args[3]))
	}
	os.Exit(m.Run())
}

func fakeHub(mode, socket string) int {
	f, err := os.OpenFile(os.Getenv("MCPLINK_STARTS"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return 1
	}
	fmt.Fprintf(f, "%d %s\n", os.Getpid(), os.Getenv("CSA_SESSION_ID"))
	f.Close()
	if mode == "fail" {
		fmt.Fprintln(os.Stderr, "fake hub: the configuration is broken")
		return 1
	}
	os.Remove(socket)
	l, err := net.Listen("unix", socket)
	if err != nil {
		return 1
	}
	for {
		c, err := l.Accept()
		if err != nil {
			return 0
		}
		c.Close()
	}
}

type env struct {
	dir, socket, starts string
	vars                map[string]string
}

func newEnv(t *testing.T, mode string) *env {
	dir, err := os.MkdirTemp("", "mcplink") // socket paths are limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	e := &env{dir: dir, starts: filepath.Join(dir, "starts"), vars: map[string]string{
		"XDG_RUNTIME_DIR": filepath.Join(dir, "run"), "CSA_STATE_DIR": filepath.Join(dir, "state")}}
	t.Setenv("MCPLINK_FAKE_HUB", mode)
	t.Setenv("MCPLINK_STARTS", e.starts)
	if e.socket, err = Socket(e.getenv); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, pid := range e.hubs(t) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		os.RemoveAll(dir)
	})
	return e
}

func (e *env) getenv(k string) string { return e.vars[k] }

// hubs are the pids of the fake hubs started so far.
func (e *env) hubs(t *testing.T) []int {
	b, err := os.ReadFile(e.starts)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		pid, _ := strconv.Atoi(strings.Fields(l)[0])
		pids = append(pids, pid)
	}
	return pids
}

func self(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func TestSocketIsInThePrivateRuntimeDir(t *testing.T) {
	e := newEnv(t, "serve")
	if want := filepath.Join(e.dir, "run", "csa", SocketName); e.socket != want {
		t.Fatalf("Socket = %s, want %s", e.socket, want)
	}
	if fi, err := os.Stat(filepath.Dir(e.socket)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("socket directory: %v %v", fi, err)
	}
	if got := LogFile(e.getenv); got != filepath.Join(e.dir, "state", LogName) {
		t.Fatalf("LogFile = %s", got)
	}
}

// Eight callers at once with no hub start exactly one, and every one of
// them returns with the hub answering. The hub is detached (its own
// session) and carries none of the caller's run variables.
func TestConcurrentEnsureStartsOneHub(t *testing.T) {
	e := newEnv(t, "serve")
	t.Setenv("CSA_SESSION_ID", "01RUNTHATSTARTEDTHEHUB0000")
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { errs[i] = Ensure(context.Background(), self(t), e.socket, e.getenv) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if !Answers(e.socket) {
		t.Fatal("no hub answers after Ensure")
	}
	hubs := e.hubs(t)
	if len(hubs) != 1 {
		t.Fatalf("%d hubs started, want 1", len(hubs))
	}
	if b, _ := os.ReadFile(e.starts); strings.Contains(string(b), "01RUNTHATSTARTEDTHEHUB") {
		t.Fatalf("the hub carries the run's CSA_SESSION_ID: %s", b)
	}
	if sid, err := unix.Getsid(hubs[0]); err != nil || sid != hubs[0] {
		t.Fatalf("hub %d is in session %d (%v), want its own", hubs[0], sid, err)
	}
	// Answering now: no start, one dial.
	start := time.Now()
	if err := Ensure(context.Background(), "/nonexistent/csa-mcp", e.socket, e.getenv); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("Ensure with a hub answering took %v", d)
	}
	if len(e.hubs(t)) != 1 {
		t.Fatal("Ensure started a hub while one answered")
	}
}

// A hub that fails to start is an error naming the log, with what the hub
// said, not a wait until the deadline.
func TestEnsureReportsAFailingHub(t *testing.T) {
	e := newEnv(t, "fail")
	start := time.Now()
	err := Ensure(context.Background(), self(t), e.socket, e.getenv)
	if err == nil {
		t.Fatal("Ensure succeeded with a hub that exits")
	}
	logPath := filepath.Join(e.dir, "state", LogName)
	if msg := err.Error(); !strings.Contains(msg, logPath) || !strings.Contains(msg, "the configuration is broken") {
		t.Fatalf("error %q names neither the log %s nor the hub's words", msg, logPath)
	}
	if d := time.Since(start); d >= StartTimeout {
		t.Fatalf("Ensure took %v", d)
	}
}

// A socket file with no listener (a hub that was killed) is no hub.
func TestEnsureReplacesAStaleSocket(t *testing.T) {
	e := newEnv(t, "serve")
	l, err := net.Listen("unix", e.socket)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	if Answers(e.socket) {
		t.Fatal("a closed socket answers")
	}
	if err := Ensure(context.Background(), self(t), e.socket, e.getenv); err != nil {
		t.Fatal(err)
	}
	if !Answers(e.socket) || len(e.hubs(t)) != 1 {
		t.Fatalf("hub not started over the stale socket (hubs %v)", e.hubs(t))
	}
	if !proc.Alive(e.hubs(t)[0]) {
		t.Fatal("hub not alive")
	}
}

func TestBridge(t *testing.T) {
	own := []string{"connect", "--socket", "/run/csa/mcp-hub.sock", "--project", "/src/proj"}
	for _, scope := range []string{"", "/src/proj"} {
		s := Bridge("/usr/bin/csa-mcp", "/run/csa/mcp-hub.sock", "/src/proj", scope)
		if s.Name != "csa" || s.Command != "/usr/bin/csa-mcp" || !slices.Equal(s.Args, own) {
			t.Fatalf("Bridge, scope %q = %+v", scope, s)
		}
	}
	// A remote run's scratch tree, scoped in its caller's project.
	s := Bridge("/usr/bin/csa-mcp", "/run/csa/mcp-hub.sock", "/state/cluster-trees/ID", "/src/proj")
	if !slices.Equal(s.Args, []string{"connect", "--socket", "/run/csa/mcp-hub.sock", "--project", "/state/cluster-trees/ID", "--scope", "/src/proj"}) {
		t.Fatalf("Bridge with a scope = %+v", s)
	}
}

func TestHubEnv(t *testing.T) {
	env := hubEnv([]string{"PATH=/bin", "CSA_SESSION_ID=x", "CSA_DEPTH=2", "HOME=/old", "ANTHROPIC_API_KEY=k"},
		func(k string) string { return map[string]string{"HOME": "/new", "CSA_STATE_DIR": "/st"}[k] })
	slices.Sort(env)
	if want := []string{"ANTHROPIC_API_KEY=k", "CSA_STATE_DIR=/st", "HOME=/new", "PATH=/bin"}; !slices.Equal(env, want) {
		t.Fatalf("hubEnv = %q, want %q", env, want)
	}
}

// BenchmarkEnsureAnswering is what every run that gets MCP pays when the
// hub runs: one dial.
func BenchmarkEnsureAnswering(b *testing.B) {
	dir, err := os.MkdirTemp("", "mcplink")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	socket := filepath.Join(dir, SocketName)
	l, err := net.Listen("unix", socket)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	getenv := func(string) string { return "" }
	for b.Loop() {
		if err := Ensure(context.Background(), "/nonexistent", socket, getenv); err != nil {
			b.Fatal(err)
		}
	}
}
