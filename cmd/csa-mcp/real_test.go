package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/mcp/mcptest"
	"github.com/csa-dev/csa/internal/proc"
)

// The hub with real MCP servers from npm (make mcp-servers): the
// reference server-everything and the stateful server-memory.

// everythingConf is a hub config serving server-everything as NAME.
func everythingConf(t *testing.T, name, extra string) string {
	return "[servers." + name + "]\ncommand = " + quote(mcptest.Require(t, mcptest.Everything)) + "\n" + extra
}

// tappedConf is server-everything behind a tap logging to log.
func tappedConf(t *testing.T, name, log, extra string) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return "[servers." + name + "]\ncommand = " + quote(exe) + "\nargs = " + tomlList(mcptest.Require(t, mcptest.Everything)) +
		"\nenv = { " + tapEnv + " = " + quote(log) + " }\n" + extra
}

func text(res *mcp.CallToolResult) string {
	var s []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			s = append(s, tc.Text)
		}
	}
	return strings.Join(s, "\n")
}

// callTool calls a tool; an error result is an error.
func callTool(ctx context.Context, cs *mcp.ClientSession, params *mcp.CallToolParams) (string, error) {
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", fmt.Errorf("%s: error result: %s", params.Name, text(res))
	}
	return text(res), nil
}

func echo(ctx context.Context, cs *mcp.ClientSession, message string) (string, error) {
	return callTool(ctx, cs, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": message}})
}

func mustEcho(t *testing.T, cs *mcp.ClientSession, message string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, err := echo(ctx, cs, message)
	if err != nil || got != "Echo: "+message {
		t.Fatalf("echo %q: %q, %v", message, got, err)
	}
}

// longOp is server-everything's trigger-long-running-operation: steps
// progress notifications (with a token), spread over seconds.
func longOp(seconds float64, steps int, token any) *mcp.CallToolParams {
	p := &mcp.CallToolParams{Name: "trigger-long-running-operation",
		Arguments: map[string]any{"duration": seconds, "steps": steps}}
	if token != nil {
		p.SetProgressToken(token)
	}
	return p
}

// Eight agents, whose request ids all collide (each session counts from
// 1), share one server-everything process, and every answer reaches the
// agent that asked.
func TestRealEverythingSharedByEight(t *testing.T) {
	w := newWorld(t)
	h := startHub(t, w, everythingConf(t, "everything", ""))
	const clients, calls = 8, 25
	sessions := make([]*mcp.ClientSession, clients)
	for i := range sessions {
		sessions[i] = h.connect(t, nil)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, clients*calls)
	for i, cs := range sessions {
		for j := range calls {
			wg.Go(func() {
				msg := fmt.Sprintf("agent %d, call %d", i, j)
				got, err := echo(ctx, cs, msg)
				if err == nil && got != "Echo: "+msg {
					err = fmt.Errorf("agent %d got %q for %q", i, got, msg)
				}
				if err != nil {
					errs <- err
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	rep := h.status(t)
	if rep.Clients != clients || len(rep.Backends) != 1 {
		t.Fatalf("status: %d clients, backends %+v; want %d clients and one backend", rep.Clients, rep.Backends, clients)
	}
	b := rep.Backends[0]
	if b.PID == 0 || b.Calls != clients*calls || b.Errors != 0 || b.Restarts != 0 || b.RSS == 0 {
		t.Fatalf("backend: %+v, want one running process that took all %d calls", b, clients*calls)
	}
	table, err := proc.ReadTable()
	if err != nil {
		t.Fatal(err)
	}
	if kids := table.Children(rep.PID); !slices.Equal(kids, []int{b.PID}) {
		t.Fatalf("the hub's children are %v, want only the backend %d", kids, b.PID)
	}
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", b.PID))
	if !strings.Contains(string(cmdline), "server-everything") {
		t.Fatalf("backend %d runs %q", b.PID, cmdline)
	}
}

// A backend SIGKILLed in the middle of a call: the caller gets an error
// within a second, the server is restarted and the next call works.
func TestRealBackendKilledMidCall(t *testing.T) {
	w := newWorld(t)
	h := startHub(t, w, everythingConf(t, "everything", ""))
	progressed := make(chan struct{}, 1000)
	cs := h.connect(t, &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
		progressed <- struct{}{}
	}})
	old := h.backend(t, "everything", "")
	if old.PID == 0 {
		t.Fatalf("backend not started by initialize: %+v", old)
	}
	failed := make(chan error, 1)
	go func() {
		_, err := callTool(context.Background(), cs, longOp(600, 600, "kill-me"))
		failed <- err
	}()
	select { // the server is at work on the call
	case <-progressed:
	case <-time.After(time.Minute):
		t.Fatal("no progress from the long call")
	}
	if err := syscall.Kill(old.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	select {
	case err := <-failed:
		if err == nil {
			t.Fatal("the call on a killed server succeeded")
		}
		if since := time.Since(killed); since > time.Second {
			t.Fatalf("the caller's error came %v after the kill, want within 1 s", since)
		}
		if !strings.Contains(err.Error(), "exited") || !strings.Contains(err.Error(), "during the call") {
			t.Fatalf("error: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the call on a killed server never ended")
	}
	mustEcho(t, cs, "after the restart")
	now := h.backend(t, "everything", "")
	if now.PID == 0 || now.PID == old.PID || now.Restarts != 1 {
		t.Fatalf("after the kill: %+v (before: pid %d), want a new process and one restart", now, old.PID)
	}
}

// With concurrency = 1, 50 concurrent calls from five agents all get
// answered, the server never has more than one at a time, and each agent's
// calls reach it first-in first-out. A full queue refuses a call at once,
// saying why.
func TestRealFIFOQueue(t *testing.T) {
	w := newWorld(t)
	log := filepath.Join(w.dir, "tap.log")
	h := startHub(t, w, tappedConf(t, "serial", log, "concurrency = 1\nqueue = 64\n")+
		everythingConf(t, "tight", "concurrency = 1\nqueue = 2\n"))
	const agents, each = 5, 10
	raws := make([]*rawClient, agents)
	for i := range raws {
		raws[i] = dialRaw(t, h.socket, "serial")
	}
	var wg sync.WaitGroup
	for i, r := range raws {
		wg.Go(func() {
			for j := range each {
				r.send(t, j+1, "tools/call", map[string]any{
					"name": "trigger-long-running-operation", "arguments": map[string]any{"duration": 0.02, "steps": 1},
					"_meta": map[string]any{"csa-test/seq": fmt.Sprintf("%d/%d", i, j)}})
			}
		})
	}
	wg.Wait()
	for i, r := range raws {
		for range each {
			m := r.next(t)
			if m.Error != nil || !strings.Contains(string(m.Result), "Long running operation completed") {
				t.Fatalf("agent %d, call %s: %+v %s", i, m.ID, m.Error, m.Result)
			}
		}
	}
	evs := readTap(t, log)
	most, total := maxToolCallsInFlight(evs)
	if most != 1 || total != agents*each {
		t.Fatalf("the server saw %d tools/call, at most %d at a time; want %d, one at a time", total, most, agents*each)
	}
	next := make([]int, agents) // each agent's calls, in the order they were sent
	for _, e := range evs {
		if e.Method != "tools/call" {
			continue
		}
		var i, j int
		if _, err := fmt.Sscanf(metaSeq(t, e.Params), "%d/%d", &i, &j); err != nil || j != next[i] {
			t.Fatalf("the server got agent %d's call %d, want its call %d (%v)", i, j, next[i], err)
		}
		next[i]++
	}

	// The full queue: one call at the server, two waiting, the fourth
	// refused at once with the reason.
	cs := h.connect(t, nil, "--only", "tight")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for n := 1; n <= 3; n++ {
		go callTool(ctx, cs, longOp(600, 1, nil))
		waitFor(t, fmt.Sprintf("%d calls admitted", n), func() bool {
			b := h.backend(t, "tight", "")
			return b.InFlight+b.Queued == n
		})
	}
	if b := h.backend(t, "tight", ""); b.InFlight != 1 || b.Queued != 2 {
		t.Fatalf("tight: %+v, want one in flight and two queued", b)
	}
	_, err := callTool(ctx, cs, longOp(600, 1, nil))
	if err == nil || !strings.Contains(err.Error(), "busy") || !strings.Contains(err.Error(), "2 queued") {
		t.Fatalf("a call beyond the queue: %v, want the busy error", err)
	}
}

// A stateful server with scope = "project": one instance per project,
// shared by the agents of that project; what one project stores another
// does not see. server-memory keeps its graph in a file, by default in its
// own package directory (shared by every instance): the config puts it in
// the project with {project}.
func TestRealProjectScope(t *testing.T) {
	w := newWorld(t)
	memory := mcptest.Require(t, mcptest.Memory)
	h := startHub(t, w, "[servers.memory]\ncommand = "+strconv.Quote(memory)+
		"\nenv = { MEMORY_FILE_PATH = \"{project}/memory.jsonl\" }\nscope = \"project\"\n")
	projA, projB := filepath.Join(w.dir, "a"), filepath.Join(w.dir, "b")
	for _, p := range []string{projA, projB} {
		os.MkdirAll(p, 0o755)
	}
	a1 := h.connect(t, nil, "--project", projA)
	a2 := h.connect(t, nil, "--project", projA)
	b1 := h.connect(t, nil, "--project", projB)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := callTool(ctx, a1, &mcp.CallToolParams{Name: "create_entities", Arguments: map[string]any{
		"entities": []any{map[string]any{"name": "hub-of-a", "entityType": "project", "observations": []string{"made in A"}}},
	}}); err != nil {
		t.Fatal(err)
	}
	graph := func(cs *mcp.ClientSession) string {
		s, err := callTool(ctx, cs, &mcp.CallToolParams{Name: "read_graph", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if g := graph(a2); !strings.Contains(g, "hub-of-a") {
		t.Fatalf("another agent of project A does not see A's entity: %s", g)
	}
	if g := graph(b1); strings.Contains(g, "hub-of-a") {
		t.Fatalf("project B sees A's entity: %s", g)
	}
	rep := h.status(t)
	var pids []int
	for _, b := range rep.Backends {
		if b.PID == 0 {
			t.Fatalf("backend not running: %+v", b)
		}
		pids = append(pids, b.PID)
	}
	if len(rep.Backends) != 2 || rep.Backends[0].Project != projA || rep.Backends[1].Project != projB || pids[0] == pids[1] {
		t.Fatalf("backends %+v, want one for project A and one for B", rep.Backends)
	}
	table, err := proc.ReadTable()
	if err != nil {
		t.Fatal(err)
	}
	if kids := table.Children(rep.PID); len(kids) != 2 {
		t.Fatalf("the hub's children are %v, want the two instances", kids)
	}
	if b, err := os.ReadFile(filepath.Join(projA, "memory.jsonl")); err != nil || !strings.Contains(string(b), "hub-of-a") {
		t.Fatalf("project A's memory file: %v %s", err, b)
	}
	if b, err := os.ReadFile(filepath.Join(projB, "memory.jsonl")); err == nil && strings.Contains(string(b), "hub-of-a") {
		t.Fatalf("project B's memory file has A's entity: %s", b)
	}
}

// Progress goes to the client whose call it is, with its own token (both
// agents use the same token and the same request id); a cancellation
// reaches the server and frees the call's slot.
func TestRealProgressAndCancellation(t *testing.T) {
	w := newWorld(t)
	log := filepath.Join(w.dir, "tap.log")
	h := startHub(t, w, everythingConf(t, "everything", "")+tappedConf(t, "tapped", log, "concurrency = 1\n"))
	type seen struct {
		mu    sync.Mutex
		steps []string
	}
	var got [2]seen
	var sessions [2]*mcp.ClientSession
	for i := range sessions {
		sessions[i] = h.connect(t, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			got[i].mu.Lock()
			got[i].steps = append(got[i].steps, fmt.Sprintf("%v:%v/%v", r.Params.ProgressToken, r.Params.Progress, r.Params.Total))
			got[i].mu.Unlock()
		}}, "--only", "everything")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for i, cs := range sessions {
		wg.Go(func() {
			if _, err := callTool(ctx, cs, longOp(0.5, 3+2*i, "same-token")); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for i := range got {
		var want []string
		for s := 1; s <= 3+2*i; s++ {
			want = append(want, fmt.Sprintf("same-token:%d/%d", s, 3+2*i))
		}
		waitFor(t, fmt.Sprintf("agent %d's progress %q", i, want), func() bool {
			got[i].mu.Lock()
			defer got[i].mu.Unlock()
			return slices.Equal(got[i].steps, want)
		})
	}

	// Cancellation: the agent gives up on a long call after its first
	// progress notification.
	progressed := make(chan struct{}, 1000)
	cs := h.connect(t, &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
		progressed <- struct{}{}
	}}, "--only", "tapped")
	callCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := callTool(callCtx, cs, longOp(600, 600, 7))
		done <- err
	}()
	select {
	case <-progressed:
	case <-ctx.Done():
		t.Fatal("no progress from the long call")
	}
	stop()
	if err := <-done; err == nil {
		t.Fatal("a cancelled call succeeded")
	}
	waitFor(t, "the server to get notifications/cancelled for the call", func() bool {
		var callID string
		for _, e := range readTap(t, log) {
			if e.Dir == ">" && e.Method == "tools/call" {
				callID = string(e.ID)
			}
			if e.Dir == ">" && e.Method == "notifications/cancelled" && callID != "" &&
				strings.Contains(string(e.Params), `"requestId":`+callID) {
				return true
			}
		}
		return false
	})
	waitFor(t, "the cancelled call's slot freed", func() bool {
		b := h.backend(t, "tapped", "")
		return b.InFlight == 0 && b.Queued == 0
	})
	mustEcho(t, cs, "the only slot is free again")
}
