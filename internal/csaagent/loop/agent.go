package loop

import (
	"context"
	"sync"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// Permit decides whether a tool call may run; reason goes back to the model
// when it may not. Nil allows everything.
type Permit func(ctx context.Context, c Call) (allow bool, reason string)

// Config is what an agent is made of.
type Config struct {
	Provider llm.Provider
	Model    string
	Effort   string
	System   string
	Tools    []tool.Tool
	// Dynamic, when set, adds tools whose set changes while the agent
	// runs (MCP servers' tools): it is asked before each model request,
	// and that turn's calls go to the tools it returned then.
	Dynamic func() []tool.Tool
	Env     *tool.Env
	Permit  Permit
	Sink    event.Sink
	// AgentID names a subagent in events ("" for the main agent);
	// AgentType is its definition's name.
	AgentID, AgentType string
	// Hooks, when set, are asked before and after each call and before
	// the run ends.
	Hooks Hooks
	// MaxTurns bounds the model requests of one Run (0: no bound).
	MaxTurns int
	// TokenBudget bounds the tokens (input + output) of one Run (0: none).
	TokenBudget int64
	// MaxTokens is the answer size asked for (default 16384).
	MaxTokens int
	// Parallel bounds the safe calls run at once (default 8).
	Parallel int
	// Compactor, when set, may shorten the conversation before a request.
	Compactor Compactor
	// Record, when set, is told every message appended to the
	// conversation, in order (the session's store).
	Record func(llm.Message)
	// Await, when set, is asked each time the model answers without
	// calling tools, before the run ends: it may wait (for background
	// subagents) and return a user message to continue with (their
	// results), or ok false to let the run end. It must return promptly
	// once ctx is done.
	Await func(ctx context.Context) (msg llm.Message, ok bool)
}

// Compactor shortens a conversation that has grown past its threshold.
type Compactor interface {
	// Compact returns the conversation to continue with, or msgs itself
	// when nothing needs doing. last is the usage of the latest response.
	Compact(ctx context.Context, a *Agent, msgs []llm.Message, last llm.Usage) ([]llm.Message, error)
}

// Agent is one conversation with a model and its tools.
type Agent struct {
	cfg   Config
	tools map[string]tool.Tool // Tools, then the Dynamic ones of the turn

	mu    sync.Mutex
	msgs  []llm.Message
	usage llm.Usage // of the whole conversation's responses
	last  llm.Usage // of the latest response
	// stopWith ends the run after the current turn with this text (a plan
	// presented in a mode that does not proceed).
	stopWith *string
	fatal    error // an infrastructure failure of a tool
}

// New makes an agent continuing history (nil for a new conversation).
func New(cfg Config, history []llm.Message) *Agent {
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = 16384
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = 8
	}
	if cfg.Sink == nil {
		cfg.Sink = event.Func(func(event.Event) {})
	}
	a := &Agent{cfg: cfg, tools: map[string]tool.Tool{}, msgs: append([]llm.Message(nil), history...)}
	for _, t := range cfg.Tools {
		a.tools[t.Name()] = t
	}
	return a
}

// Messages returns a copy of the conversation.
func (a *Agent) Messages() []llm.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]llm.Message(nil), a.msgs...)
}

// Replace swaps the conversation (compaction by hand).
func (a *Agent) Replace(msgs []llm.Message) {
	a.mu.Lock()
	a.msgs = msgs
	a.mu.Unlock()
}

// Usage is the token total of the conversation's responses.
func (a *Agent) Usage() llm.Usage {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.usage
}

// LastUsage is the usage of the latest response (what compaction
// measures the context by).
func (a *Agent) LastUsage() llm.Usage {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last
}

// Config returns the agent's configuration (subagents start from it),
// with the provider and model in use.
func (a *Agent) Config() Config {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg
}

// Use sends the requests that follow to p and model, until the next Use:
// a skill's model for the rest of its turn.
func (a *Agent) Use(p llm.Provider, model string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cfg.Provider, a.cfg.Model = p, model
}

func (a *Agent) append(m llm.Message) {
	a.mu.Lock()
	a.msgs = append(a.msgs, m)
	a.mu.Unlock()
	if a.cfg.Record != nil {
		a.cfg.Record(m)
	}
}

func (a *Agent) emit(e event.Event) {
	e.Agent = a.cfg.AgentID
	if e.Time.IsZero() {
		e.Time = now()
	}
	a.cfg.Sink.Emit(e)
}

// specs is the tools offered in the next request. With Dynamic tools it
// puts the current set in a.tools for that turn's calls (a new map, the
// old one untouched): only the loop's goroutine calls it, before it runs
// the turn's tools. A built-in tool wins over a dynamic one of its name.
func (a *Agent) specs() []llm.ToolSpec {
	all := a.cfg.Tools
	if a.cfg.Dynamic != nil {
		byName := map[string]tool.Tool{}
		all = nil
		for _, t := range append(append([]tool.Tool(nil), a.cfg.Tools...), a.cfg.Dynamic()...) {
			if _, dup := byName[t.Name()]; !dup {
				byName[t.Name()] = t
				all = append(all, t)
			}
		}
		a.tools = byName
	}
	out := make([]llm.ToolSpec, len(all))
	for i, t := range all {
		out[i] = tool.Spec(t)
	}
	return out
}
