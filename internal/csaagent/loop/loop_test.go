package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// scripted answers each request with the next message of a list; the
// providers themselves are tested against the scripted model server.
type scripted struct {
	mu      sync.Mutex
	answers []llm.Message
	seen    [][]llm.Message
	models  []string
}

func (s *scripted) Name() string { return "scripted" }

func (s *scripted) Stream(ctx context.Context, req *llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, req.Messages)
	s.models = append(s.models, req.Model)
	if len(s.answers) == 0 {
		return nil, fmt.Errorf("no more answers")
	}
	m := s.answers[0]
	s.answers = s.answers[1:]
	stop := llm.StopEnd
	if len(m.ToolUses()) > 0 {
		stop = llm.StopToolUse
	}
	if t := m.Text(); t != "" && on != nil {
		on(llm.Delta{Kind: llm.DeltaText, Text: t})
	}
	return &llm.Response{Message: m, Stop: stop, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}}, nil
}

func use(id, name, input string) llm.Block {
	return llm.Block{Type: llm.BlockToolUse, ID: id, Name: name, Input: json.RawMessage(input)}
}

func answer(blocks ...llm.Block) llm.Message {
	return llm.Message{Role: llm.Assistant, Content: blocks}
}

func text(s string) llm.Block { return llm.Block{Type: llm.BlockText, Text: s} }

// probe is a tool that records how many of its calls run at once; each
// call waits until release is closed (or its context ends).
type probe struct {
	name    string
	safe    bool
	running atomic.Int32
	peak    atomic.Int32
	started chan string
	release chan struct{}
}

func newProbe(name string, safe bool) *probe {
	return &probe{name: name, safe: safe, started: make(chan string, 64), release: make(chan struct{})}
}

func (p *probe) Name() string                         { return p.name }
func (p *probe) Description() string                  { return "probe" }
func (p *probe) Schema() json.RawMessage              { return json.RawMessage(`{"type":"object"}`) }
func (p *probe) ConcurrencySafe(json.RawMessage) bool { return p.safe }
func (p *probe) ReadOnly(json.RawMessage) bool        { return p.safe }
func (p *probe) Subject(in json.RawMessage) string    { return string(in) }
func (p *probe) Run(ctx context.Context, _ *tool.Env, in json.RawMessage) (tool.Result, error) {
	n := p.running.Add(1)
	defer p.running.Add(-1)
	for {
		old := p.peak.Load()
		if n <= old || p.peak.CompareAndSwap(old, n) {
			break
		}
	}
	p.started <- string(in)
	select {
	case <-p.release:
		return tool.Result{Output: "done " + string(in)}, nil
	case <-ctx.Done():
		return tool.Result{Output: "cut short " + string(in)}, nil
	}
}

func results(t *testing.T, m llm.Message) []string {
	t.Helper()
	var out []string
	for _, b := range m.Content {
		if b.Type != llm.BlockToolResult {
			t.Fatalf("unexpected block %+v", b)
		}
		out = append(out, b.ToolUseID+"="+b.Content)
	}
	return out
}

func TestSafeCallsOverlapAndResultsKeepCallOrder(t *testing.T) {
	read := newProbe("Read", true)
	p := &scripted{answers: []llm.Message{
		answer(use("a", "Read", `"1"`), use("b", "Read", `"2"`), use("c", "Read", `"3"`)),
		answer(text("read all three")),
	}}
	a := New(Config{Provider: p, Tools: []tool.Tool{read}}, nil)
	done := make(chan Outcome)
	go func() { done <- a.Run(context.Background(), llm.UserText("go")) }()
	for range 3 { // all three start before any is released: they overlap
		<-read.started
	}
	close(read.release)
	out := <-done
	if out.End != EndDone || out.Text != "read all three" || out.Turns != 2 {
		t.Fatalf("outcome %+v", out)
	}
	if got := read.peak.Load(); got != 3 {
		t.Fatalf("peak concurrency %d, want 3", got)
	}
	msgs := a.Messages()
	got := results(t, msgs[2])
	want := []string{`a=done "1"`, `b=done "2"`, `c=done "3"`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("results %v, want %v", got, want)
	}
}

func TestUnsafeCallsRunAloneInOrder(t *testing.T) {
	read := newProbe("Read", true)
	write := newProbe("Write", false)
	close(read.release)
	close(write.release)
	p := &scripted{answers: []llm.Message{
		answer(use("1", "Write", `"w1"`), use("2", "Read", `"r1"`), use("3", "Read", `"r2"`), use("4", "Write", `"w2"`)),
		answer(text("ok")),
	}}
	var mu sync.Mutex
	var order []string
	sink := event.Func(func(e event.Event) {
		if e.Kind == event.ToolStarted || e.Kind == event.ToolFinished {
			mu.Lock()
			order = append(order, string(e.Kind)+":"+e.ToolID)
			mu.Unlock()
		}
	})
	a := New(Config{Provider: p, Tools: []tool.Tool{read, write}, Sink: sink}, nil)
	if out := a.Run(context.Background(), llm.UserText("go")); out.End != EndDone {
		t.Fatalf("outcome %+v", out)
	}
	if write.peak.Load() != 1 {
		t.Fatalf("writes overlapped")
	}
	// Write 1 finishes before the reads start; both reads finish before
	// write 4 starts.
	idx := map[string]int{}
	for i, s := range order {
		idx[s] = i
	}
	if !(idx["tool_finished:1"] < idx["tool_started:2"] && idx["tool_finished:1"] < idx["tool_started:3"] &&
		idx["tool_finished:2"] < idx["tool_started:4"] && idx["tool_finished:3"] < idx["tool_started:4"]) {
		t.Fatalf("order %v", order)
	}
}

func TestInterruptDuringToolKeepsConversationWhole(t *testing.T) {
	slow := newProbe("Bash", false)
	p := &scripted{answers: []llm.Message{
		answer(text("running"), use("x", "Bash", `"sleep"`), use("y", "Bash", `"after"`)),
	}}
	a := New(Config{Provider: p, Tools: []tool.Tool{slow}}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Outcome)
	go func() { done <- a.Run(ctx, llm.UserText("go")) }()
	<-slow.started
	cancel()
	select {
	case out := <-done:
		if out.End != EndInterrupted || out.Class != "interrupted" {
			t.Fatalf("outcome %+v", out)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not end after the interrupt")
	}
	msgs := a.Messages()
	if len(msgs) != 3 {
		t.Fatalf("conversation %+v", msgs)
	}
	got := results(t, msgs[2])
	if len(got) != 2 || got[0] != `x=cut short "sleep"`+"\n(interrupted by the user)" || got[1] != "y=interrupted by the user before it ran" {
		t.Fatalf("results %q", got)
	}
}

func TestDeniedCallGoesBackToTheModel(t *testing.T) {
	write := newProbe("Write", false)
	p := &scripted{answers: []llm.Message{answer(use("1", "Write", `"w"`)), answer(text("understood"))}}
	a := New(Config{Provider: p, Tools: []tool.Tool{write},
		Permit: func(context.Context, Call) (bool, string) { return false, "plan mode is read-only" }}, nil)
	out := a.Run(context.Background(), llm.UserText("go"))
	if out.End != EndDone || write.running.Load() != 0 || write.peak.Load() != 0 {
		t.Fatalf("outcome %+v, peak %d", out, write.peak.Load())
	}
	r := a.Messages()[2].Content[0]
	if !r.IsError || r.Content != "permission denied: plan mode is read-only" {
		t.Fatalf("result %+v", r)
	}
}

func TestMaxTurnsAndUnknownTool(t *testing.T) {
	p := &scripted{answers: []llm.Message{answer(use("1", "Nope", `{}`)), answer(use("2", "Nope", `{}`))}}
	a := New(Config{Provider: p, MaxTurns: 2}, nil)
	out := a.Run(context.Background(), llm.UserText("go"))
	if out.End != EndMaxTurns || out.Turns != 2 {
		t.Fatalf("outcome %+v", out)
	}
	if r := a.Messages()[2].Content[0]; !r.IsError || r.Content != `no tool named "Nope"` {
		t.Fatalf("result %+v", r)
	}
}

// switcher is a tool that makes its agent use another provider and model,
// as loading a skill with a model of its own does.
type switcher struct {
	probe
	to    llm.Provider
	model string
	agent **Agent
}

func (s *switcher) Run(context.Context, *tool.Env, json.RawMessage) (tool.Result, error) {
	(*s.agent).Use(s.to, s.model)
	return tool.Result{Output: "switched"}, nil
}

func TestUseSwitchesTheRequestsThatFollow(t *testing.T) {
	first := &scripted{answers: []llm.Message{answer(use("1", "Switch", `{}`))}}
	second := &scripted{answers: []llm.Message{answer(text("done"))}}
	var a *Agent
	sw := &switcher{probe: probe{name: "Switch"}, to: second, model: "m2", agent: &a}
	a = New(Config{Provider: first, Model: "m1", Tools: []tool.Tool{sw}}, nil)
	out := a.Run(context.Background(), llm.UserText("go"))
	if out.End != EndDone || out.Text != "done" {
		t.Fatalf("outcome %+v", out)
	}
	if fmt.Sprint(first.models, second.models) != "[m1] [m2]" {
		t.Fatalf("models %v then %v", first.models, second.models)
	}
	if c := a.Config(); c.Provider != second || c.Model != "m2" {
		t.Fatalf("config after the switch: %v %s", c.Provider, c.Model)
	}
}
