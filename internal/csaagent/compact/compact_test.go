package compact

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/loop"
	"github.com/csa-dev/csa/internal/csaagent/store"
	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// model answers with a function of the request; every answer reports
// used input tokens, so a small window fills up.
type model struct {
	mu        sync.Mutex
	used      int64
	summaries []*llm.Request
	summary   func(*llm.Request) (string, error)
	agent     func(*llm.Request) llm.Message
}

func (m *model) Name() string { return "fake" }

func (m *model) Stream(ctx context.Context, req *llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if req.System == system {
		m.summaries = append(m.summaries, req)
		if len(req.Tools) != 0 {
			panic("tools in a summary request")
		}
		s, err := m.summary(req)
		if err != nil {
			return nil, err
		}
		return &llm.Response{Message: llm.Message{Role: llm.Assistant, Content: []llm.Block{{Type: llm.BlockText, Text: s}}}}, nil
	}
	msg := m.agent(req)
	stop := llm.StopEnd
	if len(msg.ToolUses()) > 0 {
		stop = llm.StopToolUse
	}
	return &llm.Response{Message: msg, Stop: stop, Usage: llm.Usage{InputTokens: m.used, CacheReadTokens: 50, OutputTokens: 10}}, nil
}

func say(s string) llm.Message {
	return llm.Message{Role: llm.Assistant, Content: []llm.Block{{Type: llm.BlockText, Text: s}}}
}

func read(id, path string) llm.Message {
	in, _ := json.Marshal(map[string]string{"path": path})
	return llm.Message{Role: llm.Assistant, Content: []llm.Block{{Type: llm.BlockText, Text: "reading " + id},
		{Type: llm.BlockToolUse, ID: id, Name: "Read", Input: in}}}
}

// readTool reads a file and records it in the FileState.
type readTool struct{}

func (readTool) Name() string                         { return "Read" }
func (readTool) Description() string                  { return "" }
func (readTool) Schema() json.RawMessage              { return json.RawMessage(`{"type":"object"}`) }
func (readTool) ConcurrencySafe(json.RawMessage) bool { return true }
func (readTool) ReadOnly(json.RawMessage) bool        { return true }
func (readTool) Subject(json.RawMessage) string       { return "" }
func (readTool) Run(ctx context.Context, env *tool.Env, in json.RawMessage) (tool.Result, error) {
	var r struct{ Path string }
	tool.Decode(in, &r)
	data, err := os.ReadFile(r.Path)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	env.Files.Record(r.Path)
	return tool.Result{Output: string(data)}, nil
}

type sink struct {
	mu  sync.Mutex
	evs []event.Event
}

func (s *sink) Emit(e event.Event) {
	if e.Kind == event.CompactStart || e.Kind == event.CompactEnd {
		s.mu.Lock()
		s.evs = append(s.evs, e)
		s.mu.Unlock()
	}
}

type fixture struct {
	dir   string
	files []string
	conv  *store.Conversation
	a     *loop.Agent
	c     *Compactor
	m     *model
	ev    *sink
	hooks []string
}

func setup(t *testing.T, cfg Config, m *model, history []llm.Message) *fixture {
	t.Helper()
	f := &fixture{dir: t.TempDir(), m: m, ev: &sink{}}
	for _, n := range []string{"a.go", "b.go"} {
		p := filepath.Join(f.dir, n)
		if err := os.WriteFile(p, []byte("package "+strings.TrimSuffix(n, ".go")+" // CONTENT OF "+n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		f.files = append(f.files, p)
	}
	conv, err := store.Create(f.dir, "s1", store.Record{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conv.Close() })
	f.conv = conv
	cfg.Store = conv
	cfg.PreCompact = func(_ context.Context, trigger, instructions string) {
		f.hooks = append(f.hooks, trigger+":"+instructions)
	}
	f.c = New(cfg)
	f.a = loop.New(loop.Config{Provider: m, Model: "claude-test", Tools: []tool.Tool{readTool{}}, Sink: f.ev,
		Env: &tool.Env{Cwd: f.dir, Files: tool.NewFileState()}, Compactor: f.c,
		Record: func(msg llm.Message) { conv.Message(msg) }}, history)
	return f
}

// checkPaired fails when a tool_result has no tool_use in the message
// before it, or a tool_use no result in the message after it.
func checkPaired(t *testing.T, msgs []llm.Message) {
	t.Helper()
	for i, m := range msgs {
		for _, b := range m.Content {
			if b.Type == llm.BlockToolResult {
				ok := false
				if i > 0 {
					for _, u := range msgs[i-1].ToolUses() {
						ok = ok || u.ID == b.ToolUseID
					}
				}
				if !ok {
					t.Fatalf("message %d: result %s without its call", i, b.ToolUseID)
				}
			}
		}
	}
	for i, m := range msgs {
		if m.Role == llm.Assistant && len(m.ToolUses()) > 0 && i+1 >= len(msgs) {
			t.Fatalf("message %d: calls without results", i)
		}
	}
	for i := 1; i < len(msgs); i++ {
		if msgs[i].Role == msgs[i-1].Role {
			t.Fatalf("messages %d and %d are both %s", i-1, i, msgs[i].Role)
		}
	}
}

func TestAutoCompactionKeepsTheTaskGoing(t *testing.T) {
	m := &model{used: 100, summary: func(*llm.Request) (string, error) { return "SUMMARY OF EARLIER WORK", nil }}
	var f *fixture
	var afterCompact *llm.Request
	calls := 0
	m.agent = func(req *llm.Request) llm.Message {
		switch calls++; calls {
		case 1:
			return read("r1", f.files[0])
		case 2:
			return read("r2", f.files[1])
		case 3:
			m.used = 900 // the context is now past 80% of 1000
			return read("r3", f.files[0])
		}
		afterCompact = req
		return say("task finished")
	}
	f = setup(t, Config{Window: 1000, Keep: 1}, m, nil)
	out := f.a.Run(context.Background(), llm.UserText("the original task"))
	if out.End != loop.EndDone || out.Text != "task finished" {
		t.Fatalf("outcome %+v", out)
	}
	if len(m.summaries) != 1 || len(f.hooks) != 1 || f.hooks[0] != "auto:" {
		t.Fatalf("summaries %d, hooks %v", len(m.summaries), f.hooks)
	}
	// The summary request saw the earlier turns as a transcript, without tools.
	sr := m.summaries[0].Messages[0].Text()
	if !strings.Contains(sr, "[user]: the original task") || !strings.Contains(sr, "[assistant called Read]") || !strings.Contains(sr, "CONTENT OF a.go") {
		t.Fatalf("summary request %q", sr)
	}
	msgs := afterCompact.Messages
	first := msgs[0].Text()
	for _, want := range []string{"SUMMARY OF EARLIER WORK", "<request>\nthe original task\n</request>", "CONTENT OF a.go", "CONTENT OF b.go"} {
		if !strings.Contains(first, want) {
			t.Fatalf("first message lacks %q:\n%s", want, first)
		}
	}
	// a.go was read last: it comes first.
	if strings.Index(first, "CONTENT OF a.go") > strings.Index(first, "CONTENT OF b.go") {
		t.Fatal("files not most recent first")
	}
	// The recent turn is kept whole: the last call and its result.
	if len(msgs) != 3 || msgs[1].ToolUses()[0].ID != "r3" || msgs[2].Content[0].ToolUseID != "r3" {
		t.Fatalf("kept %+v", msgs[1:])
	}
	checkPaired(t, msgs)
	// The store replays the compacted conversation.
	back, err := store.Load(store.Path(f.dir, "s1"))
	if err != nil || !reflect.DeepEqual(back, f.a.Messages()) {
		t.Fatalf("stored conversation differs (%v):\n%+v\n%+v", err, back, f.a.Messages())
	}
	if len(f.ev.evs) != 2 || f.ev.evs[0].Kind != event.CompactStart || f.ev.evs[1].Kind != event.CompactEnd ||
		f.ev.evs[1].Mode != Auto || f.ev.evs[1].IsError || f.ev.evs[0].PreTokens <= 0 || f.ev.evs[1].PostTokens <= 0 {
		t.Fatalf("events %+v", f.ev.evs)
	}
}

func TestManualCompact(t *testing.T) {
	m := &model{used: 100, summary: func(req *llm.Request) (string, error) {
		if !strings.Contains(req.Messages[0].Text(), "keep the API names") {
			return "", errors.New("instructions missing")
		}
		return "MANUAL SUMMARY", nil
	}}
	var f *fixture
	m.agent = func(req *llm.Request) llm.Message {
		if len(req.Messages) == 1 {
			return read("r1", f.files[1])
		}
		return say("answer " + req.Messages[len(req.Messages)-1].Text())
	}
	f = setup(t, Config{Window: 1000}, m, nil)
	if out := f.a.Run(context.Background(), llm.UserText("first")); out.End != loop.EndDone {
		t.Fatalf("outcome %+v", out)
	}
	m.used = 950 // full, but compacted by hand below: no second compaction
	if err := f.c.Now(context.Background(), f.a, "keep the API names"); err != nil {
		t.Fatal(err)
	}
	msgs := f.a.Messages()
	if len(msgs) != 2 || !strings.Contains(msgs[0].Text(), "MANUAL SUMMARY") || !strings.Contains(msgs[0].Text(), "CONTENT OF b.go") ||
		msgs[1].Text() != "answer " {
		t.Fatalf("compacted %+v", msgs)
	}
	if f.hooks[0] != "manual:keep the API names" {
		t.Fatalf("hooks %v", f.hooks)
	}
	if out := f.a.Run(context.Background(), llm.UserText("second")); out.Text != "answer second" || len(m.summaries) != 1 {
		t.Fatalf("outcome %+v, %d summaries", out, len(m.summaries))
	}
	back, err := store.Load(store.Path(f.dir, "s1"))
	if err != nil || !reflect.DeepEqual(back, f.a.Messages()) {
		t.Fatalf("stored conversation differs (%v)", err)
	}
}

func TestFailureKeepsTheConversation(t *testing.T) {
	m := &model{used: 990, summary: func(*llm.Request) (string, error) { return "", errors.New("overloaded") }}
	var f *fixture
	m.agent = func(req *llm.Request) llm.Message {
		if len(req.Messages) < 7 {
			return read("r"+string(rune('0'+len(req.Messages))), f.files[0])
		}
		return say("done anyway")
	}
	f = setup(t, Config{Window: 1000}, m, nil)
	out := f.a.Run(context.Background(), llm.UserText("task"))
	if out.End != loop.EndDone || out.Text != "done anyway" || len(f.a.Messages()) != 8 {
		t.Fatalf("outcome %+v, %d messages", out, len(f.a.Messages()))
	}
	// Tried before each request past the threshold (but the second,
	// when one turn is all there is).
	if n := len(m.summaries); n != 2 {
		t.Fatalf("%d summary requests", n)
	}
	var failed int
	for _, e := range f.ev.evs {
		if e.Kind == event.CompactEnd && e.IsError && strings.Contains(e.Text, "overloaded") {
			failed++
		}
	}
	if failed != 2 {
		t.Fatalf("events %+v", f.ev.evs)
	}
	before := f.a.Messages()
	if err := f.c.Now(context.Background(), f.a, ""); err == nil || !strings.Contains(err.Error(), "overloaded") {
		t.Fatalf("manual error %v", err)
	}
	if !reflect.DeepEqual(before, f.a.Messages()) {
		t.Fatal("a failed manual compaction changed the conversation")
	}
	back, _ := store.Load(store.Path(f.dir, "s1"))
	if !reflect.DeepEqual(back, before) {
		t.Fatal("store differs")
	}
	// Too short to compact.
	g := setup(t, Config{}, &model{}, []llm.Message{llm.UserText("hi")})
	if err := g.c.Now(context.Background(), g.a, ""); !errors.Is(err, ErrNothing) {
		t.Fatalf("error %v", err)
	}
}

func TestCutNeverSeparatesCallsFromResults(t *testing.T) {
	u := llm.UserText
	call := func(id string) llm.Message {
		return llm.Message{Role: llm.Assistant, Content: []llm.Block{{Type: llm.BlockToolUse, ID: id, Name: "Bash", Input: json.RawMessage(`{}`)}}}
	}
	res := func(id string) llm.Message {
		return llm.Message{Role: llm.User, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: id, Content: strings.Repeat("x", 400)}}}
	}
	msgs := []llm.Message{u("task"), call("1"), res("1"), call("2"), res("2"), say("ok"), u("more"), call("3"), res("3")}
	for keep := int64(0); keep < 1000; keep += 7 {
		k := Cut(msgs, keep)
		if k < 2 || msgs[k].Role != llm.Assistant {
			t.Fatalf("keep %d: cut %d", keep, k)
		}
		checkPaired(t, msgs[k:])
	}
	if k := Cut(msgs, 1000); k != 3 {
		t.Fatalf("cut %d, want the earliest", k)
	}
	if k := Cut(msgs, 0); k != 7 {
		t.Fatalf("cut %d, want the last turn", k)
	}
	if k := Cut(msgs[:3], 10); k != -1 {
		t.Fatalf("cut %d of one turn", k)
	}
	if LastRequest(msgs) != 6 {
		t.Fatal("last request")
	}
}

func TestDefaultWindow(t *testing.T) {
	for m, w := range map[string]int64{"claude-sonnet-4-5": 200_000, "anthropic/Claude-Opus": 200_000, "gpt-5-codex": 400_000,
		"gemini-2.5-pro": 1_000_000, "qwen3-coder": 128_000} {
		if got := DefaultWindow(m); got != w {
			t.Errorf("%s: %d, want %d", m, got, w)
		}
	}
	c := New(Config{})
	a := loop.New(loop.Config{Model: "gpt-5"}, nil)
	if c.Limit(a) != 320_000 {
		t.Fatalf("limit %d", c.Limit(a))
	}
}

func TestTranscriptCaps(t *testing.T) {
	var msgs []llm.Message
	msgs = append(msgs, llm.UserText("THE TASK"))
	for i := 0; i < 50; i++ {
		msgs = append(msgs, say(strings.Repeat("a", 100)), llm.UserText(strings.Repeat("b", 100)))
	}
	msgs = append(msgs, say("LAST"))
	s := Transcript(msgs, 1000)
	if len(s) > 1100 || !strings.Contains(s, "THE TASK") || !strings.Contains(s, "LAST") || !strings.Contains(s, "left out") {
		t.Fatalf("transcript %d bytes:\n%s", len(s), s)
	}
}
