package loop

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// toolNames records the tools each request offered.
type toolNames struct {
	*scripted
	mu   sync.Mutex
	seen [][]string
}

func (p *toolNames) Stream(ctx context.Context, req *llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	p.mu.Lock()
	p.seen = append(p.seen, names)
	p.mu.Unlock()
	return p.scripted.Stream(ctx, req, on)
}

type echoTool struct{ name string }

func (e echoTool) Name() string                         { return e.name }
func (e echoTool) Description() string                  { return "echo" }
func (e echoTool) Schema() json.RawMessage              { return json.RawMessage(`{"type":"object"}`) }
func (e echoTool) ConcurrencySafe(json.RawMessage) bool { return true }
func (e echoTool) ReadOnly(json.RawMessage) bool        { return true }
func (e echoTool) Subject(json.RawMessage) string       { return "" }
func (e echoTool) Run(context.Context, *tool.Env, json.RawMessage) (tool.Result, error) {
	return tool.Result{Output: "ran " + e.name}, nil
}

// A tool that appears in Dynamic between turns is offered in the next
// request and can be called; one that left is neither offered nor run.
func TestDynamicToolsChangeBetweenTurns(t *testing.T) {
	var mu sync.Mutex
	dynamic := []tool.Tool{echoTool{"mcp__s__old"}}
	set := func(ts ...tool.Tool) { mu.Lock(); dynamic = ts; mu.Unlock() }
	p := &toolNames{scripted: &scripted{answers: []llm.Message{
		answer(use("a", "mcp__s__old", `{}`)),
		answer(use("b", "mcp__s__new", `{}`), use("c", "mcp__s__old", `{}`)),
		answer(text("done")),
	}}}
	changeAfterFirstCall := &changer{Tool: echoTool{"mcp__s__old"}, after: func() { set(echoTool{"mcp__s__new"}) }}
	set(changeAfterFirstCall)
	a := New(Config{Provider: p, Tools: []tool.Tool{echoTool{"Read"}}, Dynamic: func() []tool.Tool {
		mu.Lock()
		defer mu.Unlock()
		return dynamic
	}}, nil)
	out := a.Run(context.Background(), llm.UserText("go"))
	if out.End != EndDone {
		t.Fatalf("outcome %+v", out)
	}
	want := [][]string{{"Read", "mcp__s__old"}, {"Read", "mcp__s__new"}, {"Read", "mcp__s__new"}}
	if !slices.EqualFunc(p.seen, want, slices.Equal[[]string]) {
		t.Fatalf("tools offered %q, want %q", p.seen, want)
	}
	msgs := a.Messages()
	got := results(t, msgs[4])
	if got[0] != "b=ran mcp__s__new" || got[1] != `c=no tool named "mcp__s__old"` {
		t.Fatalf("second turn's results %q", got)
	}
}

// changer is a tool that changes the dynamic set when it runs.
type changer struct {
	tool.Tool
	after func()
}

func (c *changer) Run(ctx context.Context, env *tool.Env, in json.RawMessage) (tool.Result, error) {
	defer c.after()
	return c.Tool.Run(ctx, env, in)
}
