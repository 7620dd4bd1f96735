package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/testkit/modelserver"
)

// rpc is a JSON-RPC client of a real `csa-agent app-server` process.
type rpc struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	msgs   chan map[string]any
	nextID int
	exited chan error
	// answer is the decision for each approval request, in order.
	answers []string
	asked   []map[string]any // the approval requests seen
	// later are the notifications read while waiting for an answer
	// (callKeeping), kept for the next until: a turn's items may come
	// before the answer to the request that caused them (turn/interrupt).
	later []map[string]any
}

// appServerEnv is a home for csa-agent pointed at the model server.
type appServerEnv struct {
	env  []string
	work string
	dump string // the model server's request bodies
}

func newAppServerEnv(t *testing.T, script string) *appServerEnv {
	t.Helper()
	sc, err := modelserver.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	e := &appServerEnv{work: filepath.Join(dir, "work"), dump: filepath.Join(dir, "dump")}
	os.MkdirAll(e.work, 0o755)
	os.MkdirAll(e.dump, 0o755)
	srv := modelserver.New(sc, modelserver.Options{DumpDir: e.dump})
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	e.env = []string{"HOME=" + dir, "XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=k",
		"CSA_AGENT_MODEL=anthropic/claude-test", "PATH=" + os.Getenv("PATH")}
	return e
}

// start runs this test binary as csa-agent (TestMain dispatches on the
// program's name) with args.
func (e *appServerEnv) start(t *testing.T, args ...string) *rpc {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "csa-agent")
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"app-server"}, args...)...)
	cmd.Env, cmd.Dir, cmd.Stderr = e.env, e.work, os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &rpc{t: t, cmd: cmd, in: in, msgs: make(chan map[string]any, 1000), exited: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("app-server wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			c.msgs <- m
		}
		close(c.msgs)
		c.exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
	})
	return c
}

func (c *rpc) write(v any) {
	c.t.Helper()
	b, _ := json.Marshal(v)
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		c.t.Fatal(err)
	}
}

// request sends a request and returns its id.
func (c *rpc) request(method string, params any) float64 {
	c.nextID++
	c.write(map[string]any{"id": c.nextID, "method": method, "params": params})
	return float64(c.nextID)
}

// until reads messages until want matches one (returned with those
// before it), answering approval requests from c.answers meanwhile.
func (c *rpc) until(what string, want func(m map[string]any) bool) (map[string]any, []map[string]any) {
	c.t.Helper()
	var seen []map[string]any
	for len(c.later) > 0 {
		m := c.later[0]
		c.later = c.later[1:]
		if want(m) {
			return m, seen
		}
		seen = append(seen, m)
	}
	deadline := time.After(90 * time.Second)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				c.t.Fatalf("app-server closed its output waiting for %s; seen %v", what, seen)
			}
			if strings.HasSuffix(str(m, "method"), "/requestApproval") && m["id"] != nil {
				c.asked = append(c.asked, m)
				d := "decline"
				if len(c.answers) > 0 {
					d, c.answers = c.answers[0], c.answers[1:]
				}
				c.write(map[string]any{"id": m["id"], "result": map[string]any{"decision": d}})
			}
			if want(m) {
				return m, seen
			}
			seen = append(seen, m)
		case <-deadline:
			c.t.Fatalf("no %s within 90 s; seen %v", what, seen)
		}
	}
}

// call sends a request and waits for its answer.
func (c *rpc) call(method string, params any) map[string]any {
	c.t.Helper()
	m, _ := c.answer(method, params)
	return m
}

// callKeeping is call keeping the notifications read meanwhile for the
// next until.
func (c *rpc) callKeeping(method string, params any) map[string]any {
	c.t.Helper()
	m, seen := c.answer(method, params)
	for _, n := range seen {
		if n["method"] != nil {
			c.later = append(c.later, n)
		}
	}
	return m
}

func (c *rpc) answer(method string, params any) (map[string]any, []map[string]any) {
	c.t.Helper()
	id := c.request(method, params)
	return c.until("the answer to "+method, func(m map[string]any) bool { return m["id"] == id && m["method"] == nil })
}

// result is a successful answer's result.
func (c *rpc) result(method string, params any) map[string]any {
	c.t.Helper()
	m := c.call(method, params)
	r, ok := m["result"].(map[string]any)
	if !ok {
		c.t.Fatalf("%s: %v", method, m)
	}
	return r
}

func (c *rpc) initialize() {
	c.t.Helper()
	r := c.result("initialize", map[string]any{"clientInfo": map[string]any{"name": "test-ide", "version": "1.0"}})
	if !strings.HasPrefix(str(r, "userAgent"), "csa-agent/") || str(r, "platformOs") == "" {
		c.t.Fatalf("initialize: %v", r)
	}
	c.write(map[string]any{"method": "initialized"})
}

func (c *rpc) startThread(params map[string]any) string {
	c.t.Helper()
	r := c.result("thread/start", params)
	id := str(r["thread"].(map[string]any), "id")
	if id == "" {
		c.t.Fatalf("thread/start: %v", r)
	}
	return id
}

// turn starts a turn and returns its id.
func (c *rpc) turn(threadID, text string) string {
	c.t.Helper()
	r := c.result("turn/start", map[string]any{"threadId": threadID, "input": []any{map[string]any{"type": "text", "text": text}}})
	turn := r["turn"].(map[string]any)
	if str(turn, "status") != "inProgress" || str(turn, "id") == "" {
		c.t.Fatalf("turn/start: %v", r)
	}
	return str(turn, "id")
}

// completed waits for the turn's turn/completed and returns its turn
// object and the notifications before it.
func (c *rpc) completed(turnID string) (map[string]any, []map[string]any) {
	c.t.Helper()
	m, seen := c.until("turn/completed of "+turnID, func(m map[string]any) bool {
		return m["method"] == "turn/completed" && str(params(m)["turn"].(map[string]any), "id") == turnID
	})
	return params(m)["turn"].(map[string]any), seen
}

func params(m map[string]any) map[string]any { p, _ := m["params"].(map[string]any); return p }

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

// items are the items of the notifications named method, by type.
func items(seen []map[string]any, method, typ string) []map[string]any {
	var out []map[string]any
	for _, m := range seen {
		if m["method"] == method {
			if it, _ := params(m)["item"].(map[string]any); str(it, "type") == typ {
				out = append(out, it)
			}
		}
	}
	return out
}

const appServerScript = `
[[rule]]
contains = "run echo"
  [[rule.step]]
  shell = "echo hello-appserver"
  [[rule.step]]
  text = "all done, echo ran"

[[rule]]
contains = "make files"
  [[rule.step]]
  shell = "touch a"
  [[rule.step]]
  shell = "touch a"
  [[rule.step]]
  write_file = { path = "new.txt", content = "fresh\n" }
  [[rule.step]]
  text = "files made"

[[rule]]
contains = "wait long"
  [[rule.step]]
  shell = "sleep 30"
  [[rule.step]]
  text = "woke up"

[[rule]]
contains = "continue please"
body = "files made"
  [[rule.step]]
  text = "continued with the history"
`

// An IDE's session with csa-agent app-server: streamed answers and a Bash
// item, an approval round trip, an interrupted turn, the turn bound,
// thread/list, then thread/resume in a new process, and end of input
// interrupting a turn.
func TestAppServerSession(t *testing.T) {
	e := newAppServerEnv(t, appServerScript)
	c := e.start(t, "--max-active-turns", "1")
	c.initialize()

	// A malformed line and an unknown method: errors, and the connection
	// goes on.
	io.WriteString(c.in, "{oops\n")
	if m, _ := c.until("the parse error", func(m map[string]any) bool { return m["error"] != nil }); m["error"].(map[string]any)["code"] != -32700.0 {
		t.Fatalf("malformed line: %v", m)
	}
	if m := c.call("thread/fork", map[string]any{"threadId": "x"}); m["error"].(map[string]any)["code"] != -32601.0 {
		t.Fatalf("unknown method: %v", m)
	}

	// Bypassing permissions, asking no one: the Bash call runs, its item
	// carries the command, output and exit code, the answer streams.
	free := c.startThread(map[string]any{"cwd": e.work, "sandbox": "danger-full-access", "approvalPolicy": "never"})
	turn, seen := c.completed(c.turn(free, "run echo"))
	if str(turn, "status") != "completed" {
		t.Fatalf("turn: %v", turn)
	}
	if seen[0]["method"] != "turn/started" {
		t.Errorf("the first notification is %v, want turn/started", seen[0]["method"])
	}
	bash := items(seen, "item/completed", "commandExecution")
	if len(bash) != 1 || str(bash[0], "command") != "echo hello-appserver" || str(bash[0], "status") != "completed" ||
		bash[0]["exitCode"] != 0.0 || !strings.Contains(str(bash[0], "aggregatedOutput"), "hello-appserver") {
		t.Fatalf("Bash item: %v", bash)
	}
	if st := items(seen, "item/started", "commandExecution"); len(st) != 1 || str(st[0], "status") != "inProgress" || str(st[0], "id") != str(bash[0], "id") {
		t.Errorf("Bash item/started: %v", st)
	}
	var deltas strings.Builder
	for _, m := range seen {
		if m["method"] == "item/agentMessage/delta" {
			deltas.WriteString(str(params(m), "delta"))
		}
	}
	msg := items(seen, "item/completed", "agentMessage")
	if deltas.String() != "all done, echo ran" || len(msg) != 1 || str(msg[0], "text") != "all done, echo ran" {
		t.Fatalf("deltas %q, agent messages %v", deltas.String(), msg)
	}

	// Asking: the first touch is declined, the second accepted, the
	// write accepted; the model hears of the refusal.
	asking := c.startThread(map[string]any{"cwd": e.work})
	c.answers = []string{"decline", "accept", "accept"}
	turnID := c.turn(asking, "make files")
	turn, seen = c.completed(turnID)
	if str(turn, "status") != "completed" || len(c.asked) != 3 {
		t.Fatalf("turn %v after %d approval requests", turn, len(c.asked))
	}
	for i, want := range []string{"item/commandExecution/requestApproval", "item/commandExecution/requestApproval", "item/fileChange/requestApproval"} {
		p := params(c.asked[i])
		if c.asked[i]["method"] != want || str(p, "threadId") != asking || str(p, "turnId") != turnID || str(p, "itemId") == "" {
			t.Errorf("approval request %d: %v, want %s", i, c.asked[i], want)
		}
	}
	if cmd := str(params(c.asked[0]), "command"); cmd != "touch a" {
		t.Errorf("approval asked about %q", cmd)
	}
	bash = items(seen, "item/completed", "commandExecution")
	if len(bash) != 2 || str(bash[0], "status") != "declined" || str(bash[1], "status") != "completed" ||
		str(bash[0], "id") != str(params(c.asked[0]), "itemId") {
		t.Errorf("Bash items: %v", bash)
	}
	files := items(seen, "item/completed", "fileChange")
	if len(files) != 1 || str(files[0], "status") != "completed" {
		t.Fatalf("fileChange items: %v", files)
	}
	change := files[0]["changes"].([]any)[0].(map[string]any)
	if str(change, "path") != filepath.Join(e.work, "new.txt") || str(change["kind"].(map[string]any), "type") != "add" || str(change, "diff") != "+fresh\n" {
		t.Errorf("file change: %v", change)
	}
	if _, err := os.Stat(filepath.Join(e.work, "a")); err != nil {
		t.Errorf("the accepted touch did not run: %v", err)
	}
	if !dumpsContain(t, e.dump, "the user declined this call") {
		t.Error("no model request carried the declined call's result")
	}

	// A long turn: a second turn on the same thread is refused, one on
	// another thread is over the bound (-32001); turn/interrupt ends it.
	long := c.turn(free, "wait long")
	c.until("the sleep's item/started", func(m map[string]any) bool {
		it, _ := params(m)["item"].(map[string]any)
		return m["method"] == "item/started" && str(it, "command") == "sleep 30"
	})
	start := time.Now()
	text := []any{map[string]any{"type": "text", "text": "hi"}}
	if m := c.call("turn/start", map[string]any{"threadId": free, "input": text}); m["error"].(map[string]any)["code"] != -32600.0 ||
		!strings.Contains(m["error"].(map[string]any)["message"].(string), "is running turn "+long) {
		t.Errorf("a second turn on a busy thread: %v", m)
	}
	m := c.call("turn/start", map[string]any{"threadId": asking, "input": text})
	if e, _ := m["error"].(map[string]any); e["code"] != -32001.0 || e["data"].(map[string]any)["reason"] != "turnCapacity" {
		t.Fatalf("a turn over --max-active-turns: %v", m)
	}
	// The sleep's item/completed may come before the answer (a busy
	// machine): kept for completed.
	if r := c.callKeeping("turn/interrupt", map[string]any{"threadId": free, "turnId": long}); r["error"] != nil {
		t.Fatalf("turn/interrupt: %v", r)
	}
	turn, seen = c.completed(long)
	if str(turn, "status") != "interrupted" || time.Since(start) > 25*time.Second {
		t.Fatalf("interrupted turn %v after %v", turn, time.Since(start))
	}
	if sleep := items(seen, "item/completed", "commandExecution"); len(sleep) != 1 || str(sleep[0], "status") != "failed" {
		t.Errorf("the interrupted sleep: %v", sleep)
	}

	// thread/list pages, the latest first.
	page1 := c.result("thread/list", map[string]any{"limit": 1})
	data := page1["data"].([]any)
	if len(data) != 1 || page1["nextCursor"] == nil {
		t.Fatalf("thread/list page 1: %v", page1)
	}
	page2 := c.result("thread/list", map[string]any{"limit": 5, "cursor": page1["nextCursor"]})
	ids := []string{str(data[0].(map[string]any), "id")}
	for _, x := range page2["data"].([]any) {
		ids = append(ids, str(x.(map[string]any), "id"))
	}
	if len(ids) != 2 || page2["nextCursor"] != nil || !(contains(ids, free) && contains(ids, asking)) {
		t.Fatalf("thread/list ids %v (page 2 %v)", ids, page2)
	}
	c.in.Close()
	if err := <-c.exited; err != nil {
		t.Fatalf("app-server at end of input: %v", err)
	}

	// A new process resumes the asking thread: its turn carries the
	// history; end of input interrupts the turn running and exits 0.
	c = e.start(t)
	c.initialize()
	r := c.result("thread/resume", map[string]any{"threadId": asking})
	if th := r["thread"].(map[string]any); str(th, "id") != asking || str(th, "preview") != "make files" || str(r, "cwd") != e.work {
		t.Fatalf("thread/resume: %v", r)
	}
	turn, seen = c.completed(c.turn(asking, "continue please"))
	if msg := items(seen, "item/completed", "agentMessage"); str(turn, "status") != "completed" || len(msg) != 1 || str(msg[0], "text") != "continued with the history" {
		t.Fatalf("resumed turn %v: %v", turn, msg)
	}
	c.result("thread/resume", map[string]any{"threadId": free, "sandbox": "danger-full-access"})
	long = c.turn(free, "wait long")
	c.until("the sleep's item/started", func(m map[string]any) bool { return m["method"] == "item/started" })
	c.in.Close()
	if turn, _ = c.completed(long); str(turn, "status") != "interrupted" {
		t.Fatalf("a turn at end of input: %v", turn)
	}
	if err := <-c.exited; err != nil {
		t.Fatalf("app-server at end of input: %v", err)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func dumpsContain(t *testing.T, dir, s string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if strings.Contains(string(b), s) {
			return true
		}
	}
	return false
}
