package agents

import (
	"fmt"
	"strings"
)

// Program is a program csa runs: a tool's own, or its ACP agent. Most are
// npm packages, whose pinned version is in pins/<Name>/package-lock.json
// of internal/toolcache, which is also the directory of its install in
// csa's cache of pinned programs. A program without a package is built
// with csa (csa-agent) and installed beside it.
type Program struct {
	Name    string // the executable, as found on PATH: claude, codex-acp
	Package string // the npm package that installs it; "" when built with csa
	// Args are given before any of csa's own: those that make the program
	// what the registry says it is (csa-agent --acp is its ACP agent).
	Args []string `json:",omitempty"`
}

// BuiltWithCSA reports a program built and installed with csa itself, not
// an npm package: it has no pin, and csa's own version is its version.
func (p Program) BuiltWithCSA() bool { return p.Package == "" }

// Spec is one tool of the closed set: everything csa knows about it. A new
// tool is one adapter file defining its Spec, plus its line in Registry.
type Spec struct {
	Tool    Tool
	Program Program
	// ACP is the tool's Agent Client Protocol agent; nil for none.
	ACP *Program
	// Family is the model family of its models; "" when it follows the
	// model the tool is configured with (FamilyOf).
	Family string
	// ModelWithProvider: the tool names models provider/model, so a
	// tier spec's provider is part of the model it is given.
	ModelWithProvider bool
	// InitialEstimateMB is the memory one run is assumed to need (MB)
	// until the tool has a history of its own.
	InitialEstimateMB int64
	// StateDirs are the directories where the program keeps its own
	// state, relative to HOME: a confined run may write them, and csa makes
	// those missing before it starts (internal/sandbox); StateFiles are
	// such files, writable when they exist.
	StateDirs, StateFiles []string
	// Credentials are its secrets, relative to HOME: no other tool's
	// confined run may read them.
	Credentials []string
	// APIHosts are the hosts of its model APIs (and their sign-in), which
	// a run whose network is confined may reach through csa's proxy;
	// ConfigEndpoints reads the model endpoints its own configuration
	// names (nil: it has none beyond *_BASE_URL; see ModelEndpoints).
	APIHosts        []string
	ConfigEndpoints func(EndpointEnv) []string
	// MCPClient: the program takes MCP servers csa gives it for a run.
	MCPClient bool
	// InputCountsCached: the input tokens the program reports include
	// those read from the provider's cache (OpenAI's and Gemini's way);
	// otherwise they are only the uncached ones (Anthropic's way). What a
	// session cost depends on it (internal/cost).
	InputCountsCached bool
	// Adapter drives it headless.
	Adapter Adapter
	// Interactive builds its interactive interface (csa run -i).
	Interactive func(InteractiveRequest) (InteractiveInvocation, error)
	// Transcript finds the interactive transcript of a provider session
	// under a HOME, when no hook reported it; nil when there is no such
	// place.
	Transcript func(home, providerSession string) string
}

// Registry is every tool, in csa's stable order: the one list that config,
// the commands, the pinned installs and the adapters read.
var Registry = []*Spec{&claudeCodeSpec, &codexSpec, &geminiSpec, &opencodeSpec, &csaAgentSpec}

// All lists every tool name in the registry's order.
var All = func() []Tool {
	out := make([]Tool, len(Registry))
	for i, s := range Registry {
		out[i] = s.Tool
	}
	return out
}()

// Lookup returns the spec of a tool name.
func Lookup(name string) (*Spec, bool) {
	for _, s := range Registry {
		if string(s.Tool) == name {
			return s, true
		}
	}
	return nil, false
}

// Names returns the tool names, for messages.
func Names() string {
	s := make([]string, len(All))
	for i, t := range All {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

// Parse validates a tool name.
func Parse(name string) (Tool, error) {
	if s, ok := Lookup(name); ok {
		return s.Tool, nil
	}
	return "", &UnknownToolError{Name: name}
}

// UnknownToolError reports a name outside the closed set.
type UnknownToolError struct{ Name string }

func (e *UnknownToolError) Error() string {
	return fmt.Sprintf("unknown tool %q (known tools: %s)", e.Name, Names())
}

// For returns the headless adapter of t, which must be a known tool.
func For(t Tool) Adapter { return mustLookup(t).Adapter }

func mustLookup(t Tool) *Spec {
	s, ok := Lookup(string(t))
	if !ok {
		panic("agents: unknown tool " + string(t))
	}
	return s
}

// FamilyOf is the model family of tool t configured with model: the tool's
// own, else that of the model; "" when it cannot be told.
func FamilyOf(t Tool, model string) string {
	if s, ok := Lookup(string(t)); ok && s.Family != "" {
		return s.Family
	}
	return FamilyOfModel(model)
}

// Programs lists every program csa can run: each tool's, then the ACP
// agents that are programs of their own (csa-agent is its own, with
// --acp; see Program.BuiltWithCSA).
func Programs() []Program {
	var out []Program
	for _, s := range Registry {
		out = append(out, s.Program)
	}
	for _, s := range Registry {
		if s.ACP != nil && s.ACP.Name != s.Program.Name {
			out = append(out, *s.ACP)
		}
	}
	return out
}
