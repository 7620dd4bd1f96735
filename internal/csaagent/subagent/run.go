package subagent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/loop"
	"github.com/csa-dev/csa/internal/csaagent/tool"
	"github.com/csa-dev/csa/internal/session"
)

// child is a prepared subagent.
type child struct {
	id    string
	def   Definition
	req   tool.SubagentRequest
	agent *loop.Agent
	hooks *Hooks
	rec   *record
	sink  event.Sink
}

// RunSubagent runs a Task call: in the foreground it returns the
// subagent's final answer; in the background it returns at once and the
// answer reaches the model through Await.
func (h *Hooks) RunSubagent(ctx context.Context, req tool.SubagentRequest) (tool.Result, error) {
	if h.agent == nil {
		return tool.Result{}, errors.New("subagent hooks used before Attach")
	}
	def, ok := h.find(req.Type)
	if !ok {
		var names []string
		for _, d := range h.defs {
			names = append(names, d.Name)
		}
		return tool.Errorf("no subagent type %q; the types are: %s", req.Type, strings.Join(names, ", ")), nil
	}
	if strings.TrimSpace(req.Prompt) == "" {
		return tool.Errorf("the prompt is empty: say what the subagent should do"), nil
	}
	c, res := h.prepare(def, req)
	if c == nil {
		return res, nil
	}
	if !req.Background {
		return h.run(ctx, c), nil
	}
	ctx, cancel := context.WithCancel(h.bgCtx)
	b := &background{id: c.id, typ: def.Name, desc: req.Description, cancel: cancel}
	h.mu.Lock()
	h.bg[c.id] = b
	h.mu.Unlock()
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer cancel()
		b.res = h.run(ctx, c)
		h.mu.Lock()
		delete(h.bg, c.id)
		h.done = append(h.done, b)
		close(h.changed)
		h.changed = make(chan struct{})
		h.mu.Unlock()
	}()
	return tool.Result{Output: fmt.Sprintf("Started subagent %s (%s) in the background. Its final answer will be "+
		"given to you in a message when it finishes: go on with other work meanwhile, and do not poll for it.", c.id, def.Name)}, nil
}

// prepare makes the subagent's agent: its tools, model, fresh context and
// csa record. A nil child comes with the result to give the model.
func (h *Hooks) prepare(def Definition, req tool.SubagentRequest) (*child, tool.Result) {
	pc := h.agent.Config()
	cfg := pc
	cfg.Record, cfg.Await, cfg.Compactor = nil, nil, nil
	if h.cfg.MaxTurns > 0 {
		cfg.MaxTurns = h.cfg.MaxTurns
	}
	if def.Model != "" && def.Model != "inherit" && h.cfg.ResolveModel != nil {
		p, m, err := h.cfg.ResolveModel(def.Model)
		if err != nil {
			return nil, tool.Errorf("subagent %s: model %q: %v", def.Name, def.Model, err)
		}
		cfg.Provider, cfg.Model = p, m
	}
	prompt, err := def.Instructions()
	if err != nil {
		return nil, tool.Errorf("subagent %s: %v", def.Name, err)
	}
	if h.cfg.System != nil {
		cfg.System = h.cfg.System(prompt)
	} else if prompt != "" {
		cfg.System = pc.System + "\n\n" + prompt
	}
	cfg.Tools = h.toolsFor(def)
	cfg.Dynamic = dynamicFor(pc.Dynamic, def)
	if h.cfg.Compactor != nil {
		cfg.Compactor = h.cfg.Compactor(cfg.Model)
	}
	kid := newHooks(h.cfg, h.defs, h.depth+1)
	env := &tool.Env{Files: tool.NewFileState(), Todos: &tool.Todos{}, Agent: kid}
	if pe := pc.Env; pe != nil {
		env.Cwd, env.Roots, env.Jobs, env.SpillDir = pe.Cwd, pe.Roots, pe.Jobs, pe.SpillDir
	}
	cfg.Env = env
	c := &child{def: def, req: req, hooks: kid}
	if h.csa != nil {
		rec, err := h.csa.begin(def, req, cfg.Model, env.Cwd, h.cfg.Now)
		if err != nil {
			return nil, tool.Errorf("subagent %s could not be recorded as a csa session: %v", def.Name, err)
		}
		c.rec, c.id = rec, rec.state.ID
		kid.csa = rec.parent()
	} else {
		c.id = newID()
	}
	cfg.AgentID, cfg.AgentType = c.id, def.Name
	if rec := h.cfg.Record; rec != nil {
		id := c.id
		cfg.Record = func(m llm.Message) { rec(id, m) }
	}
	c.sink = pc.Sink
	if c.sink == nil {
		c.sink = event.Func(func(event.Event) {})
	}
	if c.rec != nil {
		c.sink = event.Multi{c.sink, c.rec}
	}
	cfg.Sink = c.sink
	cfg.Await = kid.Await
	c.agent = loop.New(cfg, nil)
	kid.Attach(c.agent)
	return c, tool.Result{}
}

// toolsFor filters the main agent's tools by a definition; Task only below
// MaxDepth and only when the definition names it.
func (h *Hooks) toolsFor(def Definition) []tool.Tool {
	taskOK := h.depth+1 < h.cfg.MaxDepth && def.Tools != nil
	var want map[string]bool
	if def.Tools != nil {
		want = map[string]bool{}
		for _, n := range def.Tools {
			want[n] = true
		}
	}
	var out []tool.Tool
	for _, t := range h.cfg.Tools {
		n := t.Name()
		switch {
		case n == TaskTool && !taskOK:
		case want != nil && !want[n]:
		default:
			out = append(out, t)
		}
	}
	return out
}

// dynamicFor filters the main agent's changing tools (MCP servers') by a
// definition as they change: a definition names a tool (mcp__srv__tool) or
// every tool of a server (mcp__srv).
func dynamicFor(all func() []tool.Tool, def Definition) func() []tool.Tool {
	if all == nil || def.Tools == nil {
		return all
	}
	want := map[string]bool{}
	for _, n := range def.Tools {
		want[n] = true
	}
	return func() []tool.Tool {
		var out []tool.Tool
		for _, t := range all() {
			n := t.Name()
			server, _, _ := strings.Cut(strings.TrimPrefix(n, "mcp__"), "__")
			if want[n] || strings.HasPrefix(n, "mcp__") && want["mcp__"+server] {
				out = append(out, t)
			}
		}
		return out
	}
}

// run runs a prepared subagent to its end and returns what the model sees.
func (h *Hooks) run(ctx context.Context, c *child) tool.Result {
	now := h.cfg.Now
	c.sink.Emit(event.Event{Kind: event.SubagentStart, Time: now(), Agent: c.id, Text: c.req.Description,
		ToolName: c.def.Name, Model: c.agent.Config().Model})
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watched := make(chan struct{})
	if c.rec != nil {
		go c.rec.watch(h.cfg.KillPoll, cancel, watched)
	}
	prompt := llm.UserText(c.req.Prompt)
	if h.cfg.OnStart != nil {
		if extra := h.cfg.OnStart(ctx, c.id, c.def.Name); extra != "" {
			prompt.Content = append(prompt.Content, llm.Block{Type: llm.BlockText, Text: extra})
		}
	}
	out := c.agent.Run(ctx, prompt)
	close(watched)
	c.hooks.Close()
	killed := errors.Is(context.Cause(ctx), errKilled) || (c.rec != nil && out.End == loop.EndInterrupted && c.rec.killRequested())

	res := tool.Result{Output: out.Text}
	status, fail := session.Completed, (*session.Failure)(nil)
	switch {
	case out.End == loop.EndDone || out.End == loop.EndStopped:
		if res.Output == "" {
			res.Output = "(the subagent finished without an answer)"
		}
		res.Response = c.response(out)
	case killed:
		status, fail = session.Killed, &session.Failure{Class: session.FailKilled, Message: errKilled.Error()}
		res = tool.Result{IsError: true, Output: withPartial("subagent "+c.id+" was stopped by csa kill before it finished", out.Text)}
	case out.End == loop.EndInterrupted:
		status, fail = session.Killed, &session.Failure{Class: session.FailInterrupted, Message: "interrupted"}
		res = tool.Result{IsError: true, Output: withPartial("subagent "+c.id+" was interrupted", out.Text)}
	default:
		msg := "subagent " + c.id + " failed"
		if out.Err != nil {
			msg += ": " + out.Err.Error()
		}
		class := out.Class
		if class == "" {
			class = session.FailCrashed
			if out.End == loop.EndMaxTurns || out.End == loop.EndBudget {
				class = session.FailNoResult
			}
		}
		status, fail = session.Failed, &session.Failure{Class: class, Message: msg}
		res = tool.Result{IsError: true, Output: withPartial(msg, out.Text)}
	}
	if c.rec != nil {
		c.rec.end(status, out.Text, fail)
	}
	c.sink.Emit(event.Event{Kind: event.SubagentStop, Time: now(), Agent: c.id, Text: res.Output, IsError: res.IsError,
		ToolName: c.def.Name, Turns: out.Turns, Usage: &out.Usage, Duration: out.Duration, Class: classOf(fail)})
	return res
}

func classOf(f *session.Failure) string {
	if f == nil {
		return ""
	}
	return f.Class
}

func withPartial(msg, partial string) string {
	if strings.TrimSpace(partial) == "" {
		return msg + "."
	}
	return msg + "; its last words:\n" + partial
}
