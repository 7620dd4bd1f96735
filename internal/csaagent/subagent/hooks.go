package subagent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/loop"
	"github.com/csa-dev/csa/internal/csaagent/store"
	"github.com/csa-dev/csa/internal/csaagent/tool"
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
	// OnStart, when set, is told of each subagent as it starts (the
	// SubagentStart hooks) and may return context to add to its prompt.
	OnStart func(ctx context.Context, id, agentType string) (context string)
	// Record, when set, is told every message of each subagent's
	// conversation, in order, with the subagent's id (its transcript).
	Record func(agentID string, m llm.Message)
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
		out[i] = tool.SubagentType{Name: d.Name, Description: d.Description, Tools: d.Tools}
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

func newID() string {
	var b [6]byte
	rand.Read(b[:])
	return "agent-" + hex.EncodeToString(b[:])
}
