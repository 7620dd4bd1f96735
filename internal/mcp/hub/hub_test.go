package hub

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Eight go-sdk clients (whose request ids all start at 1) share one
// backend process, and every answer reaches the client that asked.
func TestCollidingIDsShareOneBackend(t *testing.T) {
	h, socket := startHub(t, map[string]ServerConfig{"t": server(t)})
	const clients, perClient, workers = 8, 1250, 4
	var misrouted, lost atomic.Int64
	var wg sync.WaitGroup
	for c := range clients {
		cs := connect(t, socket, Hello{}, nil)
		for w := range workers {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				for i := w; i < perClient; i += workers {
					want := fmt.Sprintf("c%d-%d", c, i)
					got, err := callText(ctx, cs, "echo", args{Text: want})
					switch {
					case err != nil:
						lost.Add(1)
					case got != want:
						misrouted.Add(1)
					}
				}
			})
		}
	}
	wg.Wait()
	if misrouted.Load() != 0 || lost.Load() != 0 {
		t.Fatalf("%d calls: %d misrouted, %d lost", clients*perClient, misrouted.Load(), lost.Load())
	}
	st := h.Status()
	if len(st) != 1 || st[0].PID == 0 || st[0].Restarts != 0 || st[0].Calls != clients*perClient {
		t.Fatalf("status %+v: want one backend, never restarted, %d calls", st, clients*perClient)
	}
}

// Only names two servers share get the server__ prefix; calls go to the
// right server; names stay within 64 characters.
func TestToolNameCollision(t *testing.T) {
	long := strings.Repeat("x", 62)
	_, socket := startHub(t, map[string]ServerConfig{
		"alpha": server(t, "MCPHUB_NAME=alpha", "MCPHUB_TOOLS=echo,only_a,"+long),
		"beta":  server(t, "MCPHUB_NAME=beta", "MCPHUB_TOOLS=echo,only_b,"+long),
	})
	cs := connect(t, socket, Hello{}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if len(tl.Name) > MaxToolName {
			t.Errorf("tool name %q is longer than %d", tl.Name, MaxToolName)
		}
	}
	for _, want := range []string{"alpha__echo", "beta__echo", "only_a", "only_b"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %q: want %s", names, want)
		}
	}
	if len(names) != 6 || slices.Contains(names, "echo") {
		t.Errorf("tools %q: want 6, no bare echo", names)
	}
	if got := mustCall(t, cs, "beta__echo", args{Text: "hi"}); got != "beta:hi" {
		t.Errorf("beta__echo = %q", got)
	}
	if got := mustCall(t, cs, "only_a", args{}); got != "alpha:only_a" {
		t.Errorf("only_a = %q", got)
	}
	for _, n := range names {
		if strings.HasPrefix(n, "beta__xx") {
			if got := mustCall(t, cs, n, args{}); got != "beta:"+long {
				t.Errorf("%s = %q", n, got)
			}
		}
	}
	// --only hides the other server, and with it the collision.
	only := connect(t, socket, Hello{Only: []string{"alpha"}}, nil)
	if got := mustCall(t, only, "echo", args{Text: "x"}); got != "alpha:x" {
		t.Errorf("echo with only alpha = %q", got)
	}
}

func TestPrefixedNamesFit(t *testing.T) {
	a, b := prefixed("srv", strings.Repeat("y", 70)), prefixed("srv", strings.Repeat("y", 71))
	if len(a) != MaxToolName || len(b) != MaxToolName || a == b {
		t.Fatalf("prefixed: %q %q", a, b)
	}
	if p := prefixed("s", "t"); p != "s__t" {
		t.Fatalf("prefixed short = %q", p)
	}
}

// A backend's tools/list_changed reaches every client, and the new tool
// is listed and callable.
func TestListChangedFansOut(t *testing.T) {
	_, socket := startHub(t, map[string]ServerConfig{"t": server(t)})
	var chans []chan struct{}
	var sessions []*mcp.ClientSession
	for range 2 {
		ch := make(chan struct{}, 10)
		chans = append(chans, ch)
		sessions = append(sessions, connect(t, socket, Hello{}, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { ch <- struct{}{} },
		}))
	}
	mustCall(t, sessions[0], "addtool", args{Text: "fresh"})
	for i, ch := range chans {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatalf("client %d: no tools/list_changed", i)
		}
	}
	if got := mustCall(t, sessions[1], "fresh", args{}); got != "new" {
		t.Fatalf("fresh = %q", got)
	}
}

// With concurrency = 1, fifty pipelined calls run in the order they
// arrived, behind a blocked one.
func TestFIFOConcurrencyOne(t *testing.T) {
	cfg := server(t)
	cfg.Concurrency = 1
	_, socket := startHub(t, map[string]ServerConfig{"t": cfg})
	release := filepath.Join(t.TempDir(), "go")
	r := newRaw(t, socket, Hello{})
	r.call(t, 0, "slow", args{File: release})
	for i := 1; i <= 50; i++ {
		r.call(t, i, "seq", args{Text: fmt.Sprint(i)})
	}
	os.WriteFile(release, nil, 0o600)
	for range 51 {
		m := r.next(t)
		var id int
		fmt.Sscan(string(m.ID), &id)
		if m.Error != nil {
			t.Fatalf("call %d: %v", id, m.Error)
		}
		if want := fmt.Sprintf("%d@%d", id, id); id > 0 && resultText(m) != want {
			t.Fatalf("call %d ran as %q, want %q", id, resultText(m), want)
		}
	}
}

// A full queue refuses at once with a clear error; the queued calls still
// run.
func TestQueueFull(t *testing.T) {
	cfg := server(t)
	cfg.Concurrency, cfg.Queue = 1, 3
	_, socket := startHub(t, map[string]ServerConfig{"t": cfg})
	release := filepath.Join(t.TempDir(), "go")
	r := newRaw(t, socket, Hello{})
	r.call(t, 0, "slow", args{File: release})
	for i := 1; i <= 5; i++ {
		r.call(t, i, "seq", args{Text: fmt.Sprint(i)})
	}
	for _, id := range []string{"4", "5"} {
		m := r.next(t)
		if string(m.ID) != id || m.Error == nil || m.Error.Code != codeBackend || !strings.Contains(m.Error.Message, "busy") {
			t.Fatalf("want queue-full error for %s, got %s %+v", id, m.ID, m.Error)
		}
	}
	os.WriteFile(release, nil, 0o600)
	for range 4 {
		if m := r.next(t); m.Error != nil {
			t.Fatalf("call %s: %v", m.ID, m.Error)
		}
	}
}

// SIGKILL of a backend mid-call: the caller has an error within a second,
// the backend restarts, the next call works.
func TestBackendKilledMidCall(t *testing.T) {
	h, socket := startHub(t, map[string]ServerConfig{"t": server(t)})
	started := make(chan struct{}, 1)
	cs := connect(t, socket, Hello{}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { started <- struct{}{} },
	})
	var pid int
	fmt.Sscan(mustCall(t, cs, "pid", args{}), &pid)
	errc := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "slow", Arguments: args{File: filepath.Join(t.TempDir(), "never")}}
		p.SetProgressToken("tok")
		_, err := cs.CallTool(context.Background(), p)
		errc <- err
	}()
	select {
	case <-started: // the call is running in the backend
	case <-time.After(30 * time.Second):
		t.Fatal("slow never reported progress")
	}
	killed := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "exited") {
			t.Fatalf("call on a killed backend: %v", err)
		}
		if d := time.Since(killed); d > time.Second {
			t.Fatalf("error after %v, want within 1s", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no error 5 s after the backend was killed")
	}
	var pid2 int
	fmt.Sscan(mustCall(t, cs, "pid", args{}), &pid2)
	if pid2 == pid || pid2 == 0 {
		t.Fatalf("pid after restart %d (before %d)", pid2, pid)
	}
	// A tool that exits mid-call: same story.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := callText(ctx, cs, "crash", args{}); err == nil {
		t.Fatal("crash returned no error")
	}
	if got := mustCall(t, cs, "echo", args{Text: "again"}); got != "again" {
		t.Fatalf("echo after crash = %q", got)
	}
	if st := h.Status(); st[0].Restarts != 2 {
		t.Fatalf("status %+v: want 2 restarts", st)
	}
}

// A 5 MiB argument and result pass both ways.
func TestBigMessage(t *testing.T) {
	_, socket := startHub(t, map[string]ServerConfig{"t": server(t)})
	cs := connect(t, socket, Hello{}, nil)
	big := strings.Repeat("0123456789abcdef", 5<<20/16)
	if got := mustCall(t, cs, "echo", args{Text: big}); got != big {
		t.Fatalf("5 MiB echo: got %d bytes", len(got))
	}
}

// Project scope: one instance per project root, shared within it.
func TestProjectScope(t *testing.T) {
	cfg := server(t)
	cfg.Scope = "project"
	h, socket := startHub(t, map[string]ServerConfig{"t": cfg})
	a, b := t.TempDir(), t.TempDir()
	a1, a2 := connect(t, socket, Hello{Project: a}, nil), connect(t, socket, Hello{Project: a}, nil)
	b1 := connect(t, socket, Hello{Project: b}, nil)
	mustCall(t, a1, "counter", args{})
	if got := mustCall(t, a2, "counter", args{}); got != "2" {
		t.Fatalf("second call in project a: counter %s", got)
	}
	if got := mustCall(t, b1, "counter", args{}); got != "1" {
		t.Fatalf("first call in project b: counter %s", got)
	}
	if got := mustCall(t, b1, "pid", args{}); !strings.HasSuffix(got, " "+b) {
		t.Fatalf("project b's backend runs in %q, want %s", got, b)
	}
	if st := h.Status(); len(st) != 2 || st[0].PID == st[1].PID {
		t.Fatalf("status %+v: want two instances", st)
	}
}

// A client's notifications/cancelled reaches the backend under the hub's
// id: the cancelled call ends there and frees the only slot.
func TestCancelReachesBackend(t *testing.T) {
	cfg := server(t)
	cfg.Concurrency = 1
	_, socket := startHub(t, map[string]ServerConfig{"t": cfg})
	started := make(chan struct{}, 1)
	cs := connect(t, socket, Hello{}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { started <- struct{}{} },
	})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "slow", Arguments: args{File: filepath.Join(t.TempDir(), "never")}}
		p.SetProgressToken(1)
		_, err := cs.CallTool(ctx, p)
		errc <- err
	}()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("slow never reported progress")
	}
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("cancelled call returned no error")
	}
	if got := mustCall(t, cs, "echo", args{Text: "next"}); got != "next" {
		t.Fatalf("echo after cancel = %q", got)
	}
}
