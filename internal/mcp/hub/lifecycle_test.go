package hub

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/proc"
)

func status1(t *testing.T, h *Hub) BackendStatus {
	t.Helper()
	st := h.Status()
	if len(st) != 1 {
		t.Fatalf("status %+v: want one backend", st)
	}
	return st[0]
}

// idle_ttl stops a backend with no call for that long, never one with a
// call in flight; listing its tools does not start it again, a call does;
// an idle stop is no crash (no restart counted).
func TestIdleTTL(t *testing.T) {
	const ttl = 300 * time.Millisecond
	s := server(t)
	s.IdleTTL = config.Duration(ttl)
	h, socket := startHub(t, map[string]ServerConfig{"t": s})
	cs := connect(t, socket, Hello{}, nil)
	var pid1 int
	fmt.Sscan(mustCall(t, cs, "pid", args{}), &pid1)
	waitFor(t, "the idle stop", func() bool { return status1(t, h).State == stateIdle && !proc.Alive(pid1) })

	// Listing answers from the known list; the server stays stopped.
	if names := toolNames(t, cs); !slices.Contains(names, "echo") {
		t.Fatalf("tools of an idle server: %q", names)
	}
	if st := status1(t, h); st.State != stateIdle || st.Starts != 1 {
		t.Fatalf("listing restarted the idle server: %+v", st)
	}

	// A call longer than the TTL keeps it running.
	file := filepath.Join(t.TempDir(), "go")
	done := make(chan error, 1)
	go func() {
		_, err := callText(context.Background(), cs, "slow", args{File: file})
		done <- err
	}()
	waitFor(t, "the slow call in flight", func() bool { st := status1(t, h); return st.InFlight == 1 && st.PID != 0 })
	for start := time.Now(); time.Since(start) < 3*ttl; time.Sleep(20 * time.Millisecond) {
		if st := status1(t, h); st.State != "running" {
			t.Fatalf("stopped with a call in flight: %+v", st)
		}
	}
	os.WriteFile(file, nil, 0o600)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the second idle stop", func() bool { return status1(t, h).IdleStops == 2 })

	var pid3 int
	fmt.Sscan(mustCall(t, cs, "pid", args{}), &pid3)
	if pid3 == 0 || pid3 == pid1 {
		t.Fatalf("pid after the idle stop %d (first %d)", pid3, pid1)
	}
	if st := status1(t, h); st.Starts != 3 || st.IdleStops != 2 || st.Restarts != 0 || st.Errors != 0 {
		t.Fatalf("status %+v: want 3 starts, 2 idle stops, no restart", st)
	}
}

// lazy: without a known tool list the server starts to learn it; a new
// hub knows it from the cache file and lists the tools of a server it
// has not started, which starts at the first call.
func TestLazy(t *testing.T) {
	cache := t.TempDir()
	s := server(t, "MCPHUB_TOOLS=echo,pid")
	s.Lazy = true
	withCache := func(h *Hub) { h.SetCacheDir(cache) }

	h1, socket1 := startHub(t, map[string]ServerConfig{"t": s}, withCache)
	cs1 := connect(t, socket1, Hello{}, nil)
	want := toolNames(t, cs1)
	if !slices.Equal(want, []string{"echo", "pid"}) {
		t.Fatalf("tools %q", want)
	}
	if st := status1(t, h1); st.Starts != 1 {
		t.Fatalf("a lazy server with no known tools did not start: %+v", st)
	}
	files, _ := filepath.Glob(filepath.Join(cache, "t-*.json"))
	if len(files) != 1 {
		t.Fatalf("cache files %q: want one", files)
	}
	cs1.Close()
	h1.Close()

	h2, socket2 := startHub(t, map[string]ServerConfig{"t": s}, withCache)
	cs2 := connect(t, socket2, Hello{}, nil)
	if got := toolNames(t, cs2); !slices.Equal(got, want) {
		t.Fatalf("tools from the cache %q, want %q", got, want)
	}
	if st := status1(t, h2); st.Starts != 0 || st.State != stateNew || st.PID != 0 {
		t.Fatalf("a lazy server with known tools started before a call: %+v", st)
	}
	if got := mustCall(t, cs2, "echo", args{Text: "hi"}); got != "hi" {
		t.Fatalf("echo = %q", got)
	}
	if st := status1(t, h2); st.Starts != 1 || st.State != "running" {
		t.Fatalf("after the first call: %+v", st)
	}

	// Another definition is another server: nothing known, it starts.
	other := s
	other.Args = []string{"-test.run=^$"}
	h3, socket3 := startHub(t, map[string]ServerConfig{"t": other}, withCache)
	connect(t, socket3, Hello{}, nil)
	if st := status1(t, h3); st.Starts != 1 {
		t.Fatalf("a changed definition used the old cache: %+v", st)
	}
}
