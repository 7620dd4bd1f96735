package subagent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/agent/event"
	"github.com/csa-dev/csa/internal/agent/loop"
	"github.com/csa-dev/csa/internal/agent/store"
	"github.com/csa-dev/csa/internal/agent/tool"
	"github.com/csa-dev/csa/internal/llm"
	"github.com/csa-dev/csa/internal/session"
)

// TaskTool is the name of the tool that starts subagents.
const TaskTool = "Task"

// Permission modes the plan rule knows (the perm package's names).
const (
	ModePlan   = "plan"
	ModeBypass = "bypassPermissions"
)

// ModeSetter is the permission policy's mode switch (perm.Policy).
type ModeSetter interface {
	Mode() string
	SetMode(string) error
}

// Recorder keeps records in the session's conversation store
// (*store.Conversation).
type Recorder interface {
	Append(store.Record) error
}

// Config is what NewHooks needs.
type Config struct {
	// Definitions are the subagents (Load's result); the built-in
	// general-purpose one is added when missing.
	Definitions []Definition
	// Tools are all the main agent's tools, Task included; a subagent
	// gets those its definition names.
	Tools []tool.Tool
	// System builds a subagent's system prompt with extra (its
	// definition's prompt) appended: prompt.Build with Env.Extra. Nil
	// appends extra to the main agent's system prompt.
	System func(extra string) string
	// ResolveModel turns a definition's model spec (not "" or "inherit")
	// into a provider and model name. Nil: such a definition inherits.
	ResolveModel func(spec string) (llm.Provider, string, error)
	// Compactor, when set, gives each subagent a compactor for its model.
	Compactor func(model string) loop.Compactor
	// MaxDepth bounds nesting (default 1): a subagent at depth d gets
	// Task only when its definition lists it and d < MaxDepth.
	MaxDepth int
	// MaxTurns bounds each subagent's run (0: the main agent's bound).
	MaxTurns int
	// Getenv reads CSA_SESSION_ID and CSA_SESSION_DIR (nil: os.Getenv):
	// when both are set each subagent is recorded as a child session.
	Getenv func(string) string
	// KillPoll is how often a recorded subagent looks for a `csa kill`
	// request (default 200ms).
	KillPoll time.Duration

	// Modes switches the permission mode for plan mode; nil disables
	// plan mode.
	Modes ModeSetter
	// Plans records presented plans (store.KindPlan); may be nil.
	Plans Recorder
	// Approve, when set, asks a person to approve a plan (interactive
	// runs): approved plans proceed, rejected ones stay in plan mode with
	// the feedback. Nil is a headless run: see ExitPlanMode.
	Approve func(plan string) (approved bool, feedback string)
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Hooks implement tool.AgentHooks for one agent: the main agent's (made
// by NewHooks) or a subagent's (made by RunSubagent). Attach binds them to
// their agent.
type Hooks struct {
	cfg   *Config
	defs  []Definition
	depth int
	agent *loop.Agent
	csa   *csaParent
	// csaErr is why the csa session could not be found (kept for Err).
	csaErr error

	planMu  sync.Mutex
	prePlan string // the mode before plan mode; "" when not planning

	mu      sync.Mutex
	bg      map[string]*background
	done    []*background // finished, not yet delivered
	changed chan struct{} // closed and replaced when a background run ends
	wg      sync.WaitGroup
	stop    context.CancelFunc
	bgCtx   context.Context
}

type background struct {
	id, typ, desc string
	cancel        context.CancelFunc
	res           tool.Result
}

// NewHooks makes the main agent's hooks. Call Attach with the agent once
// it is made (its Config.Env.Agent is these hooks, its Config.Await
// h.Await), and Close when the agent is done.
func NewHooks(cfg Config) *Hooks {
	if cfg.MaxDepth <= 0 {
		cfg.MaxDepth = 1
	}
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.KillPoll <= 0 {
		cfg.KillPoll = 200 * time.Millisecond
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	defs := cfg.Definitions
	if !hasDef(defs, GeneralPurpose) {
		defs = append([]Definition{Builtin()}, defs...)
	}
	h := newHooks(&cfg, defs, 0)
	h.csa, h.csaErr = csaFromEnv(cfg.Getenv)
	return h
}

func newHooks(cfg *Config, defs []Definition, depth int) *Hooks {
	h := &Hooks{cfg: cfg, defs: defs, depth: depth, bg: map[string]*background{}, changed: make(chan struct{})}
	h.bgCtx, h.stop = context.WithCancel(context.Background())
	return h
}

// Attach binds the hooks to their agent.
func (h *Hooks) Attach(a *loop.Agent) { h.agent = a }

// Err reports why subagents cannot be recorded as csa sessions although
// csa's variables are set (nil when they are, or when not under csa).
func (h *Hooks) Err() error { return h.csaErr }

// Close stops the background subagents still running and waits for them.
func (h *Hooks) Close() {
	h.stop()
	h.wg.Wait()
}

func hasDef(defs []Definition, name string) bool {
	for _, d := range defs {
		if d.Name == name {
			return true
		}
	}
	return false
}

// SubagentTypes lists the definitions for the Task tool's description.
func (h *Hooks) SubagentTypes() []tool.SubagentType {
	out := make([]tool.SubagentType, len(h.defs))
	for i, d := range h.defs {
		out[i] = tool.SubagentType{Name: d.Name, Description: d.Description}
	}
	return out
}

func (h *Hooks) find(name string) (Definition, bool) {
	if name == "" {
		name = GeneralPurpose
	}
	for _, d := range h.defs {
		if d.Name == name {
			return d, true
		}
	}
	return Definition{}, false
}

// errKilled is the cause of a subagent's context ended by `csa kill`.
var errKilled = errors.New("killed by csa kill")

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
	if h.cfg.System != nil {
		cfg.System = h.cfg.System(def.Prompt)
	} else if def.Prompt != "" {
		cfg.System = pc.System + "\n\n" + def.Prompt
	}
	cfg.Tools = h.toolsFor(def)
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
	cfg.AgentID = c.id
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
	out := c.agent.Run(ctx, llm.UserText(c.req.Prompt))
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

// Await is the loop's Config.Await: when the model has finished its turn
// while background subagents run, it waits until at least one of them
// ends and returns their answers as a user message, so no result is
// lost; ok is false when none is running or waiting to be delivered, or
// ctx ended.
func (h *Hooks) Await(ctx context.Context) (llm.Message, bool) {
	for {
		h.mu.Lock()
		done, running, changed := h.done, len(h.bg), h.changed
		if len(done) > 0 {
			h.done = nil
			h.mu.Unlock()
			return deliver(done), true
		}
		h.mu.Unlock()
		if running == 0 {
			return llm.Message{}, false
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return llm.Message{}, false
		}
	}
}

// Running lists the ids of the background subagents still running.
func (h *Hooks) Running() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for id := range h.bg {
		out = append(out, id)
	}
	return out
}

func deliver(done []*background) llm.Message {
	var b strings.Builder
	for i, d := range done {
		if i > 0 {
			b.WriteString("\n\n")
		}
		status := "finished"
		if d.res.IsError {
			status = "failed"
		}
		fmt.Fprintf(&b, "<subagent-result id=%q type=%q description=%q status=%q>\n%s\n</subagent-result>",
			d.id, d.typ, d.desc, status, d.res.Output)
	}
	return llm.UserText("The background subagents below have ended; here are their final answers.\n\n" + b.String())
}

func newID() string {
	var b [6]byte
	rand.Read(b[:])
	return "agent-" + hex.EncodeToString(b[:])
}
