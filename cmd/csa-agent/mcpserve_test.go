package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/testkit/modelserver"
)

// mcpWorld is a model server answering a script and the environment that
// points csa-agent at it, for `csa-agent mcp-serve` processes.
type mcpWorld struct {
	env   []string
	work  string // a working directory for the conversations
	dumps string // every request body the model server got
	state string // XDG_STATE_HOME: the conversation store is under it
}

func newMCPWorld(t *testing.T, script string) *mcpWorld {
	t.Helper()
	sc, err := modelserver.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	w := &mcpWorld{work: filepath.Join(dir, "work"), dumps: filepath.Join(dir, "dumps"), state: filepath.Join(dir, "state")}
	for _, d := range []string{w.work, w.dumps} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	srv := modelserver.New(sc, modelserver.Options{DumpDir: w.dumps})
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	w.env = []string{"HOME=" + dir, "XDG_STATE_HOME=" + w.state,
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "ANTHROPIC_BASE_URL=" + url,
		"ANTHROPIC_API_KEY=test-key", "CSA_AGENT_MODEL=anthropic/claude-test", "PATH=" + os.Getenv("PATH")}
	return w
}

// mcpClient is a go-sdk client of one `csa-agent mcp-serve` process.
type mcpClient struct {
	*mcp.ClientSession
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	exited   chan error  // the server process's end
	progress chan string // progress messages, as they arrive
	logs     chan any    // log messages' data, as they arrive
	mu       sync.Mutex
	asked    []*mcp.ElicitParams
}

// connect starts `csa-agent mcp-serve` in w; elicit, when set, answers its
// approval questions (the client then supports elicitation). The client
// speaks the SDK's latest protocol version, or version when given.
func (w *mcpWorld) connect(t *testing.T, elicit func(*mcp.ElicitParams) *mcp.ElicitResult, version ...string) *mcpClient {
	t.Helper()
	c := &mcpClient{progress: make(chan string, 1000), logs: make(chan any, 1000)}
	opts := &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		select {
		case c.progress <- r.Params.Message:
		default:
		}
	}, LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
		select {
		case c.logs <- r.Params.Data:
		default:
		}
	}}
	if elicit != nil {
		opts.ElicitationHandler = func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			c.mu.Lock()
			c.asked = append(c.asked, r.Params)
			c.mu.Unlock()
			return elicit(r.Params), nil
		}
	}
	// The process is started by hand, not by mcp.CommandTransport: a test
	// closes its input while a call is in flight, which the client's
	// Close would wait for.
	c.cmd = exec.Command("csa-agent", "mcp-serve")
	c.cmd.Env, c.cmd.Dir, c.cmd.Stderr = w.env, w.work, os.Stderr
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c.exited = make(chan error, 1)
	go func() { c.exited <- c.cmd.Wait() }()
	t.Cleanup(func() {
		c.stdin.Close()
		select {
		case <-c.exited:
		case <-time.After(30 * time.Second):
			c.cmd.Process.Kill()
			t.Error("the server did not end within 30 s of its input closing")
		}
	})
	var so *mcp.ClientSessionOptions
	if len(version) > 0 {
		so = &mcp.ClientSessionOptions{ProtocolVersion: version[0]}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).
		Connect(context.Background(), &mcp.IOTransport{Reader: stdout, Writer: c.stdin}, so)
	if err != nil {
		t.Fatal(err)
	}
	c.ClientSession = cs
	return c
}

// call calls a tool with a progress token.
func (c *mcpClient) call(ctx context.Context, t *testing.T, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	p := &mcp.CallToolParams{Name: name, Arguments: args}
	p.SetProgressToken("progress-" + name)
	res, err := c.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// waitProgress waits for a progress message containing want.
func (c *mcpClient) waitProgress(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(60 * time.Second)
	var seen []string
	for {
		select {
		case m := <-c.progress:
			if strings.Contains(m, want) {
				return
			}
			seen = append(seen, m)
		case <-timeout:
			t.Fatalf("no progress message with %q within 60 s; saw %q", want, seen)
		}
	}
}

type turnOut struct {
	ConversationID string `json:"conversation_id"`
	Content        string `json:"content"`
	End            string `json:"end"`
	Class          string `json:"class"`
	Turns          int    `json:"turns"`
}

func outOf(t *testing.T, res *mcp.CallToolResult) turnOut {
	t.Helper()
	b, _ := json.Marshal(res.StructuredContent)
	var o turnOut
	if err := json.Unmarshal(b, &o); err != nil || o.ConversationID == "" {
		t.Fatalf("structured content %s: %v", b, err)
	}
	if id, _ := res.Meta["conversationId"].(string); id != o.ConversationID {
		t.Errorf("_meta.conversationId %q, structured %q", id, o.ConversationID)
	}
	return o
}

func textOf(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// requestWith returns the body of a model request holding every one of
// subs, or "".
func (w *mcpWorld) requestWith(t *testing.T, subs ...string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(w.dumps, "*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		all := true
		for _, s := range subs {
			all = all && strings.Contains(string(b), s)
		}
		if all {
			return string(b)
		}
	}
	return ""
}

// processWith reports whether a process's command line contains s.
func processWith(s string) bool {
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err == nil && strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), s) {
			return true
		}
	}
	return false
}

// waitGone waits until no process's command line contains s.
func waitGone(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for processWith(s) {
		if time.Now().After(deadline) {
			t.Fatalf("a process %q is still running", s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

const mcpScript = `
[[rule]]
contains = "write the greeting"
  [[rule.step]]
  shell = "echo hello > greeting.txt"
  [[rule.step]]
  text = "I wrote greeting.txt."

[[rule]]
contains = "what did you write"
  [[rule.step]]
  text = "The greeting, in greeting.txt."

[[rule]]
contains = "try to touch"
  [[rule.step]]
  shell = "touch unasked.txt"
  [[rule.step]]
  text = "tried"

[[rule]]
contains = "touch two files"
  [[rule.step]]
  shell = "touch accepted.txt"
  [[rule.step]]
  shell = "touch declined.txt"
  [[rule.step]]
  text = "asked twice"

[[rule]]
contains = "wait for a long time"
  [[rule.step]]
  shell = "sleep 41.7"
  [[rule.step]]
  text = "slept"

[[rule]]
contains = "hold the server busy"
  [[rule.step]]
  shell = "sleep 43.9"
  [[rule.step]]
  text = "slept"

[[rule]]
contains = "are you still there"
  [[rule.step]]
  text = "still here"
`

// The MCP server mode end to end: a go-sdk client starts a conversation
// whose model runs a command and answers, sees progress, continues the
// conversation (the model gets the earlier turns) and, from a second
// server process, continues the stored conversation.
func TestMCPServeConversation(t *testing.T) {
	w := newMCPWorld(t, mcpScript)
	c := w.connect(t, nil)
	ctx := context.Background()

	tools, err := c.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]*mcp.Tool{}
	for _, tl := range tools.Tools {
		names[tl.Name] = tl
	}
	for _, n := range []string{"csa-agent", "csa-agent-reply"} {
		tl := names[n]
		if tl == nil || tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Fatalf("tool %s missing or without schemas: %+v", n, tl)
		}
		in, _ := json.Marshal(tl.InputSchema)
		out, _ := json.Marshal(tl.OutputSchema)
		if !strings.Contains(string(in), `"prompt"`) || !strings.Contains(string(out), `"conversation_id"`) {
			t.Errorf("%s schemas: in %s out %s", n, in, out)
		}
	}

	res := c.call(ctx, t, "csa-agent", map[string]any{"prompt": "write the greeting", "permission_mode": "bypassPermissions"})
	o := outOf(t, res)
	if res.IsError || o.End != "done" || textOf(res) != "I wrote greeting.txt." || o.Content != textOf(res) {
		t.Fatalf("start: %+v %q", o, textOf(res))
	}
	if b, err := os.ReadFile(filepath.Join(w.work, "greeting.txt")); err != nil || string(b) != "hello\n" {
		t.Fatalf("the command did not run in cwd: %q %v", b, err)
	}
	c.waitProgress(t, "Bash")
	c.waitProgress(t, "Bash done")

	res = c.call(ctx, t, "csa-agent-reply", map[string]any{"conversation_id": o.ConversationID, "prompt": "what did you write"})
	r := outOf(t, res)
	if res.IsError || r.ConversationID != o.ConversationID || textOf(res) != "The greeting, in greeting.txt." {
		t.Fatalf("reply: %+v %q", r, textOf(res))
	}
	if w.requestWith(t, "what did you write", "write the greeting", "echo hello", "I wrote greeting.txt.") == "" {
		t.Error("the reply's model request does not carry the earlier turn")
	}

	// Another server process continues the stored conversation; this
	// client asks for log messages too (set per session before protocol
	// 2026-07-28, which deprecates them).
	c2 := w.connect(t, nil, "2025-11-25")
	if err := c2.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	res = c2.call(ctx, t, "csa-agent-reply", map[string]any{"conversation_id": o.ConversationID, "prompt": "are you still there"})
	if r := outOf(t, res); res.IsError || r.ConversationID != o.ConversationID || textOf(res) != "still here" {
		t.Fatalf("reply from a second server: %+v %q", r, textOf(res))
	}
	if w.requestWith(t, "are you still there", "what did you write", "write the greeting") == "" {
		t.Error("the resumed conversation's request does not carry the stored turns")
	}
	select {
	case d := <-c2.logs:
		if m, _ := d.(map[string]any); m["conversation_id"] != o.ConversationID || m["event"] != "turn_start" {
			t.Errorf("log message %v", d)
		}
	case <-time.After(60 * time.Second):
		t.Error("no log message within 60 s")
	}
}

// Calls that need permission: without elicitation they are denied as
// headless; with it, the client's answer decides (protocol 2025-11-25, as
// Claude Code and Codex speak; on 2026-07-28 they are still denied).
func TestMCPServeApprovals(t *testing.T) {
	w := newMCPWorld(t, mcpScript)
	ctx := context.Background()

	c := w.connect(t, nil)
	res := c.call(ctx, t, "csa-agent", map[string]any{"prompt": "try to touch"})
	if res.IsError || textOf(res) != "tried" {
		t.Fatalf("no elicitation: %q", textOf(res))
	}
	if _, err := os.Stat(filepath.Join(w.work, "unasked.txt")); err == nil {
		t.Error("a call needing permission ran without anyone asked")
	}
	if w.requestWith(t, "try to touch", "touch unasked.txt", "permission") == "" {
		t.Error("the model did not hear the call was denied")
	}

	answers := []string{"accept", "decline"}
	var mu sync.Mutex
	e := w.connect(t, func(p *mcp.ElicitParams) *mcp.ElicitResult {
		mu.Lock()
		defer mu.Unlock()
		d := answers[0]
		answers = answers[1:]
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": d}}
	}, "2025-11-25")
	res = e.call(ctx, t, "csa-agent", map[string]any{"prompt": "touch two files"})
	if res.IsError || textOf(res) != "asked twice" {
		t.Fatalf("elicitation: %q", textOf(res))
	}
	if _, err := os.Stat(filepath.Join(w.work, "accepted.txt")); err != nil {
		t.Errorf("the accepted call did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.work, "declined.txt")); err == nil {
		t.Error("the declined call ran")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.asked) != 2 || !strings.Contains(e.asked[0].Message, "touch accepted.txt") ||
		e.asked[1].Meta["command"] != "touch declined.txt" || e.asked[1].Meta["conversationId"] != outOf(t, res).ConversationID {
		t.Errorf("asked %+v", e.asked)
	}

	latest := w.connect(t, func(p *mcp.ElicitParams) *mcp.ElicitResult {
		t.Errorf("asked on the latest protocol: %s", p.Message)
		return &mcp.ElicitResult{Action: "decline"}
	})
	os.Remove(filepath.Join(w.work, "unasked.txt"))
	res = latest.call(ctx, t, "csa-agent", map[string]any{"prompt": "try to touch"})
	if res.IsError || textOf(res) != "tried" {
		t.Fatalf("latest protocol: %q", textOf(res))
	}
	if _, err := os.Stat(filepath.Join(w.work, "unasked.txt")); err == nil {
		t.Error("latest protocol: a call needing permission ran")
	}
}

// Bad input gets a clear error result.
func TestMCPServeBadInput(t *testing.T) {
	w := newMCPWorld(t, mcpScript)
	c := w.connect(t, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"csa-agent", map[string]any{}, "prompt"},
		{"csa-agent", map[string]any{"prompt": "  "}, "prompt is required"},
		{"csa-agent", map[string]any{"prompt": "hi", "permission_mode": "yolo"}, `permission_mode "yolo": want one of default, acceptEdits, plan, bypassPermissions`},
		{"csa-agent", map[string]any{"prompt": "hi", "cwd": filepath.Join(w.work, "nowhere")}, "is not a directory"},
		{"csa-agent", map[string]any{"prompt": "hi", "model": "nosuchprovider/x"}, "start the conversation"},
		{"csa-agent-reply", map[string]any{"prompt": "hi"}, "conversation_id"},
		{"csa-agent-reply", map[string]any{"conversation_id": "0b5e4d8e-1111-4222-8333-444455556666", "prompt": "hi"}, `unknown conversation_id "0b5e4d8e-1111-4222-8333-444455556666"`},
	} {
		res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%s %v: %v", tc.tool, tc.args, err)
		}
		if !res.IsError || !strings.Contains(textOf(res), tc.want) {
			t.Errorf("%s %v: isError %v %q, want an error with %q", tc.tool, tc.args, res.IsError, textOf(res), tc.want)
		}
	}
}

// The client's cancel interrupts the turn at once: its command is
// stopped and the conversation takes its next turn.
func TestMCPServeCancel(t *testing.T) {
	w := newMCPWorld(t, mcpScript)
	c := w.connect(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errs := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "csa-agent", Arguments: map[string]any{"prompt": "wait for a long time", "permission_mode": "bypassPermissions"}}
		p.SetProgressToken("long")
		_, err := c.CallTool(ctx, p)
		errs <- err
	}()
	c.waitProgress(t, "sleep 41.7")
	waitFor(t, func() bool { return processWith("sleep 41.7") })
	// Another conversation runs meanwhile.
	res := c.call(context.Background(), t, "csa-agent", map[string]any{"prompt": "are you still there"})
	if res.IsError || textOf(res) != "still here" || !processWith("sleep 41.7") {
		t.Fatalf("a second conversation during the long call: %q", textOf(res))
	}
	began := time.Now()
	cancel()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
	waitGone(t, "sleep 41.7")
	if d := time.Since(began); d > 20*time.Second {
		t.Errorf("the command ended %v after the cancel", d)
	}

	// The conversation is free for its next turn, which knows the
	// earlier one was interrupted.
	id := ""
	list, _ := os.ReadDir(filepath.Join(w.state, "csa-agent", "sessions"))
	for _, f := range list {
		if b, err := os.ReadFile(filepath.Join(w.state, "csa-agent", "sessions", f.Name())); err == nil && strings.Contains(string(b), "wait for a long time") {
			id = strings.TrimSuffix(f.Name(), filepath.Ext(f.Name()))
		}
	}
	if id == "" {
		t.Fatalf("no stored conversation of the cancelled call among %v", list)
	}
	res = c.call(context.Background(), t, "csa-agent-reply", map[string]any{"conversation_id": id, "prompt": "are you still there"})
	if res.IsError || textOf(res) != "still here" {
		t.Fatalf("reply after the cancel: %q", textOf(res))
	}
	if w.requestWith(t, "are you still there", "wait for a long time", "sleep 41.7") == "" {
		t.Error("the next turn's request does not carry the interrupted one")
	}
}

// End of input ends the server: the turn in progress is interrupted, its
// command stopped, and the process exits on its own.
func TestMCPServeEndOfInput(t *testing.T) {
	w := newMCPWorld(t, mcpScript)
	c := w.connect(t, nil)
	go func() {
		p := &mcp.CallToolParams{Name: "csa-agent", Arguments: map[string]any{"prompt": "hold the server busy", "permission_mode": "bypassPermissions"}}
		p.SetProgressToken("busy")
		c.CallTool(context.Background(), p)
	}()
	c.waitProgress(t, "sleep 43.9")
	waitFor(t, func() bool { return processWith("sleep 43.9") })
	c.stdin.Close()
	select {
	case err := <-c.exited:
		c.exited <- err // for the cleanup
		if err != nil {
			t.Errorf("the server did not exit cleanly: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not end within 20 s of its input closing")
	}
	waitGone(t, "sleep 43.9")
}

// waitFor waits up to 60 s for cond.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 60 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Bad flags are a usage error before any serving.
func TestMCPServeFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--permission-mode", "yolo"}, `unknown permission mode "yolo"`},
		{[]string{"now"}, "unexpected arguments"},
		{[]string{"--nope"}, "unknown flag: --nope"},
	} {
		cmd := exec.Command("csa-agent", append([]string{"mcp-serve"}, tc.args...)...)
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), tc.want) {
			t.Errorf("mcp-serve %v: %v %q, want exit 2 and %q", tc.args, err, out, tc.want)
		}
	}
}
