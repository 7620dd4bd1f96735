package tmux

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParsePanes(t *testing.T) {
	out := []byte("csa-A|100|0||node|x\ncsa-B|200|1|7|bash\ngarbage\n")
	p := parsePanes(out)
	if a := p["csa-A"]; a.PID != 100 || a.Dead || a.DeadStatus != nil || a.Command != "node|x" {
		t.Fatalf("A: %+v", a)
	}
	if b := p["csa-B"]; b.PID != 200 || !b.Dead || b.DeadStatus == nil || *b.DeadStatus != 7 {
		t.Fatalf("B: %+v", b)
	}
	if len(p) != 2 {
		t.Fatalf("%d panes", len(p))
	}
}

func TestSocketPathPrivate(t *testing.T) {
	rt := t.TempDir()
	p, err := SocketPath(rt, "/some/store")
	if err != nil || !strings.HasPrefix(p, filepath.Join(rt, "csa")+"/") || len(p) > 100 {
		t.Fatalf("%q %v", p, err)
	}
	if q, _ := SocketPath(rt, "/other/store"); q == p {
		t.Fatal("two stores share a socket")
	}
	long := filepath.Join(rt, strings.Repeat("x", 100))
	if q, err := SocketPath(long, "/some/store"); err != nil || len(q) > 100 {
		t.Fatalf("long runtime dir: %q %v", q, err)
	}
	os.Chmod(filepath.Join(rt, "csa"), 0o777)
	if _, err := SocketPath(rt, "/some/store"); err == nil {
		t.Fatal("a world-writable socket directory was accepted")
	}
}

// TestServer drives a real tmux server: a session, its recorded pane, typed
// text, the pane list, and kill-session leaving the other session's server
// running.
func TestServer(t *testing.T) {
	bin, err := Find()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := Server{Bin: bin, Socket: filepath.Join(dir, "s.sock")}
	ctx := context.Background()
	if p, err := s.Panes(ctx); err != nil || len(p) != 0 {
		t.Fatalf("no server: %v %v", p, err)
	}
	log := filepath.Join(dir, "pane.log")
	for _, name := range []string{"csa-one", "csa-two"} {
		pid, err := s.NewSession(ctx, New{Name: name, Dir: dir, Argv: []string{"/bin/cat"}, Width: 80, Height: 20, PipeTo: log})
		if err != nil || pid <= 0 {
			t.Fatalf("new session: %d %v", pid, err)
		}
	}
	defer exec.Command(bin, "-S", s.Socket, "kill-server").Run()
	if err := s.Paste(ctx, "csa-one", []byte("typed text")); err != nil {
		t.Fatal(err)
	}
	if err := s.Paste(ctx, "csa-one", []byte("line one\nline two")); err != nil {
		t.Fatal(err)
	}
	s.SendKeys(ctx, "csa-one", "Enter")
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _ := os.ReadFile(log)
		if strings.Contains(string(b), "typed textline one") && strings.Contains(string(b), "line two") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pane log: %q", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	panes, err := s.Panes(ctx)
	if err != nil || len(panes) != 2 || panes["csa-one"].Command != "cat" {
		t.Fatalf("panes %+v %v", panes, err)
	}
	if err := s.KillSession(ctx, "csa-one"); err != nil {
		t.Fatal(err)
	}
	if err := s.KillSession(ctx, "csa-one"); err != nil {
		t.Fatalf("killing a gone session: %v", err)
	}
	panes, _ = s.Panes(ctx)
	if _, ok := panes["csa-two"]; !ok || len(panes) != 1 {
		t.Fatalf("the other session must live on: %+v", panes)
	}
	if err := s.SendKeys(ctx, "csa-on", "x"); !NoSession(err) {
		t.Fatalf("a prefix must not address csa-one's neighbour: %v", err)
	}
}

// A session made just as the server's last session ends (the server
// exiting while the client connects) is made all the same.
func TestNewSessionWhileTheServerExits(t *testing.T) {
	bin, err := Find()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := Server{Bin: bin, Socket: filepath.Join(dir, "s.sock")}
	ctx := context.Background()
	defer exec.Command(bin, "-S", s.Socket, "kill-server").Run()
	for i := 0; i < 30; i++ {
		// The pane's program ends at once: the server exits with it.
		for _, name := range []string{"csa-brief-" + strconv.Itoa(i), "csa-next-" + strconv.Itoa(i)} {
			if _, err := s.NewSession(ctx, New{Name: name, Dir: dir, Argv: []string{"/bin/true"}, Width: 80, Height: 20}); err != nil {
				t.Fatalf("round %d: %s, made as the server may be exiting: %v", i, name, err)
			}
		}
	}
}
