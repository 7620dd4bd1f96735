package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/loop"
	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// model answers each request with a function of it: subagents run in
// parallel, so a fixed script would not do.
type model func(ctx context.Context, req *llm.Request) (llm.Message, error)

func (m model) Name() string { return "fake" }

func (m model) Stream(ctx context.Context, req *llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	msg, err := m(ctx, req)
	if err != nil {
		return nil, err
	}
	stop := llm.StopEnd
	if len(msg.ToolUses()) > 0 {
		stop = llm.StopToolUse
	}
	msg.Role = llm.Assistant
	return &llm.Response{Message: msg, Stop: stop, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}}, nil
}

func say(s string) llm.Message {
	return llm.Message{Role: llm.Assistant, Content: []llm.Block{{Type: llm.BlockText, Text: s}}}
}

func calls(uses ...llm.Block) llm.Message { return llm.Message{Role: llm.Assistant, Content: uses} }

func task(id, typ, prompt string, background bool) llm.Block {
	in, _ := json.Marshal(map[string]any{"subagent_type": typ, "description": "desc " + prompt, "prompt": prompt,
		"run_in_background": background})
	return llm.Block{Type: llm.BlockToolUse, ID: id, Name: "Task", Input: in}
}

// isMain tells the main agent's requests from subagents'.
func isMain(req *llm.Request) bool { return req.System == "MAIN" }

// lastUser is the text of the last message's blocks (results or text).
func lastUser(req *llm.Request) string {
	m := req.Messages[len(req.Messages)-1]
	var parts []string
	for _, b := range m.Content {
		parts = append(parts, b.Text+b.Content)
	}
	return strings.Join(parts, "|")
}

func firstPrompt(req *llm.Request) string { return req.Messages[0].Text() }

// taskTool is the Task tool as the tools package will have it.
type taskTool struct{}

func (taskTool) Name() string                         { return "Task" }
func (taskTool) Description() string                  { return "run a subagent" }
func (taskTool) Schema() json.RawMessage              { return json.RawMessage(`{"type":"object"}`) }
func (taskTool) ConcurrencySafe(json.RawMessage) bool { return true }
func (taskTool) ReadOnly(json.RawMessage) bool        { return true }
func (taskTool) Subject(json.RawMessage) string       { return "" }
func (taskTool) Run(ctx context.Context, env *tool.Env, in json.RawMessage) (tool.Result, error) {
	var r struct {
		Type        string `json:"subagent_type"`
		Description string `json:"description"`
		Prompt      string `json:"prompt"`
		Background  bool   `json:"run_in_background"`
	}
	if err := tool.Decode(in, &r); err != nil {
		return tool.Errorf("%v", err), nil
	}
	return env.Agent.RunSubagent(ctx, tool.SubagentRequest{Type: r.Type, Description: r.Description, Prompt: r.Prompt, Background: r.Background})
}

// named is a tool that only has a name.
type named string

func (n named) Name() string                         { return string(n) }
func (n named) Description() string                  { return string(n) }
func (n named) Schema() json.RawMessage              { return json.RawMessage(`{"type":"object"}`) }
func (n named) ConcurrencySafe(json.RawMessage) bool { return true }
func (n named) ReadOnly(json.RawMessage) bool        { return true }
func (n named) Subject(json.RawMessage) string       { return "" }
func (n named) Run(context.Context, *tool.Env, json.RawMessage) (tool.Result, error) {
	return tool.Result{Output: "ok"}, nil
}

var allTools = []tool.Tool{named("Read"), named("Write"), named("Bash"), taskTool{}}

// events collects events; starts gets each SubagentStart.
type collector struct {
	mu     sync.Mutex
	all    []event.Event
	starts chan event.Event
	stops  chan event.Event
}

func newEvents() *collector {
	return &collector{starts: make(chan event.Event, 16), stops: make(chan event.Event, 16)}
}

func (e *collector) Emit(ev event.Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
	switch ev.Kind {
	case event.SubagentStart:
		e.starts <- ev
	case event.SubagentStop:
		e.stops <- ev
	}
}

func (e *collector) list() []event.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]event.Event(nil), e.all...)
}

func newMain(t *testing.T, p llm.Provider, cfg Config, sink event.Sink) (*loop.Agent, *Hooks) {
	t.Helper()
	if cfg.Tools == nil {
		cfg.Tools = allTools
	}
	if cfg.Getenv == nil {
		cfg.Getenv = func(string) string { return "" }
	}
	h := NewHooks(cfg)
	env := &tool.Env{Cwd: t.TempDir(), Files: tool.NewFileState(), Agent: h}
	a := loop.New(loop.Config{Provider: p, Model: "main-model", System: "MAIN", Tools: cfg.Tools, Env: env, Sink: sink, Await: h.Await}, nil)
	h.Attach(a)
	t.Cleanup(h.Close)
	return a, h
}

func names(specs []llm.ToolSpec) string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return strings.Join(out, ",")
}

func TestTaskRunsSubagentWithFilteredToolsAndFreshContext(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]*llm.Request{}
	p := model(func(ctx context.Context, req *llm.Request) (llm.Message, error) {
		if isMain(req) {
			if len(req.Messages) == 1 {
				return calls(task("t1", "reader", "look", false), task("t2", "", "general", false)), nil
			}
			return say("done: " + lastUser(req)), nil
		}
		mu.Lock()
		seen[firstPrompt(req)] = req
		mu.Unlock()
		return say("answer to " + firstPrompt(req)), nil
	})
	resolved := ""
	sink := newEvents()
	a, _ := newMain(t, p, Config{
		Definitions: []Definition{{Name: "reader", Description: "reads", Tools: []string{"Read", "Task"}, Model: "other/m2", Prompt: "READER PROMPT"}},
		ResolveModel: func(spec string) (llm.Provider, string, error) {
			resolved = spec
			return p, "m2", nil
		},
	}, sink)
	out := a.Run(context.Background(), llm.UserText("go"))
	if out.End != loop.EndDone || out.Text != "done: answer to look|answer to general" {
		t.Fatalf("outcome %+v", out)
	}
	r, g := seen["look"], seen["general"]
	if r == nil || g == nil {
		t.Fatalf("subagent requests %v", seen)
	}
	// Filtered: the definition's tools, Task withheld at the default depth.
	if names(r.Tools) != "Read" || names(g.Tools) != "Read,Write,Bash" {
		t.Fatalf("tools: reader %s, general %s", names(r.Tools), names(g.Tools))
	}
	// Fresh context: the prompt alone; the definition's prompt appended.
	if len(r.Messages) != 1 || !strings.HasPrefix(r.System, "MAIN") || !strings.HasSuffix(r.System, "READER PROMPT") {
		t.Fatalf("reader request %+v", r)
	}
	if r.Model != "m2" || resolved != "other/m2" || g.Model != "main-model" {
		t.Fatalf("models: reader %s (resolved %q), general %s", r.Model, resolved, g.Model)
	}
	// Every event of a subagent carries its id, between its start and stop.
	ids := map[string]string{} // id -> description
	for _, e := range sink.list() {
		if e.Kind == event.SubagentStart {
			ids[e.Agent] = e.Text
		}
	}
	if len(ids) != 2 {
		t.Fatalf("subagent starts %v", ids)
	}
	byAgent := map[string][]event.Kind{}
	for _, e := range sink.list() {
		if e.Agent != "" {
			if _, ok := ids[e.Agent]; !ok {
				t.Fatalf("event %s of unknown agent %q", e.Kind, e.Agent)
			}
			byAgent[e.Agent] = append(byAgent[e.Agent], e.Kind)
		}
	}
	for id, kinds := range byAgent {
		if kinds[0] != event.SubagentStart || kinds[len(kinds)-1] != event.SubagentStop ||
			!strings.Contains(fmt.Sprint(kinds), "assistant") || !strings.Contains(fmt.Sprint(kinds), "result") {
			t.Fatalf("events of %s: %v", id, kinds)
		}
	}
}

func TestDepthRuleAndUnknownType(t *testing.T) {
	p := model(func(ctx context.Context, req *llm.Request) (llm.Message, error) {
		if isMain(req) {
			if len(req.Messages) == 1 {
				return calls(task("t1", "nester", "nest", false), task("t2", "nope", "x", false)), nil
			}
			return say(lastUser(req)), nil
		}
		if firstPrompt(req) == "nest" {
			if len(req.Messages) == 1 {
				return say("tools " + names(req.Tools)), nil
			}
		}
		return say("leaf with " + names(req.Tools)), nil
	})
	defs := []Definition{{Name: "nester", Description: "d", Tools: []string{"Read", "Task"}, Prompt: "NESTER"}}
	a, _ := newMain(t, p, Config{Definitions: defs, MaxDepth: 2}, nil)
	out := a.Run(context.Background(), llm.UserText("go"))
	if !strings.Contains(out.Text, "tools Read,Task|") || !strings.Contains(out.Text, `no subagent type "nope"; the types are: general-purpose, nester`) {
		t.Fatalf("outcome %q", out.Text)
	}
}

func TestParallelSubagentsOverlap(t *testing.T) {
	var mu sync.Mutex
	arrived := 0
	both := make(chan struct{})
	p := model(func(ctx context.Context, req *llm.Request) (llm.Message, error) {
		if isMain(req) {
			if len(req.Messages) == 1 {
				return calls(task("a", "", "p1", false), task("b", "", "p2", false)), nil
			}
			return say(lastUser(req)), nil
		}
		mu.Lock()
		if arrived++; arrived == 2 {
			close(both)
		}
		mu.Unlock()
		select { // each waits for the other: only overlapping runs get through
		case <-both:
		case <-time.After(60 * time.Second):
			return llm.Message{}, fmt.Errorf("the other subagent never ran alongside")
		}
		return say("sub " + firstPrompt(req)), nil
	})
	a, _ := newMain(t, p, Config{}, nil)
	if out := a.Run(context.Background(), llm.UserText("go")); out.Text != "sub p1|sub p2" {
		t.Fatalf("outcome %+v", out)
	}
}

func TestBackgroundResultReachesParent(t *testing.T) {
	mainWaiting := make(chan struct{})
	var last *llm.Request
	p := model(func(ctx context.Context, req *llm.Request) (llm.Message, error) {
		if isMain(req) {
			switch len(req.Messages) {
			case 1:
				return calls(task("t", "", "bg", true)), nil
			case 3:
				if !strings.Contains(lastUser(req), "in the background") {
					return llm.Message{}, fmt.Errorf("task result %q", lastUser(req))
				}
				close(mainWaiting)
				return say("waiting for it"), nil
			}
			last = req
			return say("final"), nil
		}
		<-mainWaiting // finishes only once the main agent has ended its turn
		return say("bg-result"), nil
	})
	sink := newEvents()
	a, h := newMain(t, p, Config{}, sink)
	out := a.Run(context.Background(), llm.UserText("go"))
	if out.End != loop.EndDone || out.Text != "final" || out.Turns != 3 {
		t.Fatalf("outcome %+v", out)
	}
	msg := last.Messages[len(last.Messages)-1]
	if msg.Role != llm.User || !strings.Contains(msg.Text(), "<subagent-result id=") || !strings.Contains(msg.Text(), "bg-result") {
		t.Fatalf("delivered %+v", msg)
	}
	if len(h.Running()) != 0 {
		t.Fatalf("still running %v", h.Running())
	}
	found := false
	for _, e := range sink.list() {
		found = found || (e.Kind == event.UserMessage && e.Agent == "")
	}
	if !found {
		t.Fatal("no user_message event")
	}
}
