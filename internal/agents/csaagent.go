package agents

// csaAgentSpec is csa's own agent program, csa-agent (cmd/csa-agent). It is
// not an npm package: it is built and installed with csa, and found beside
// csa's own executable. Its command line, its hooks and its stream-json
// output are Claude Code's, so it is driven like claude-code and read by
// the same parser. csa links none of its code (the provider clients, the
// agent loop), only this description of its command line.
var csaAgentSpec = Spec{
	Tool:    CSAAgent,
	Program: Program{Name: "csa-agent"},
	// Its ACP agent is itself: `csa-agent --acp`.
	ACP: &Program{Name: "csa-agent", Args: []string{"--acp"}},
	// Family: that of its configured model (anthropic/..., openai/...,
	// gemini/...): it drives several providers.
	ModelWithProvider: true,
	InitialEstimateMB: 512,
	StateDirs:         []string{".local/state/csa-agent"},
	APIHosts:          []string{"api.anthropic.com", "api.openai.com", "generativelanguage.googleapis.com"},
	ConfigEndpoints:   csaAgentEndpoints,
	MCPClient:         true,
	Adapter:           csaAgent{},
	Interactive:       csaAgentInteractive,
}

// csaAgent drives `csa-agent -p --output-format stream-json --verbose`.
type csaAgent struct{}

// NewParser reads its output as Claude Code's: the format is the same.
func (csaAgent) NewParser() Parser { return &claudeParser{} }

// Build is Claude Code's invocation, the run's MCP servers (csa's hub)
// given as Claude Code takes them, --mcp-config JSON added to the user's
// own; csa-agent needs nothing more as root.
func (csaAgent) Build(r Request) (Invocation, error) {
	return streamJSONInvocation(r, claudeMCPArgs(r.MCP)...), nil
}

// csaAgentInteractive starts its line-mode REPL with the session's hooks in
// a Claude Code settings file: SessionStart once it reads its terminal,
// UserPromptSubmit for each input, Stop when a turn ends, so the
// classifier needs no CPU heuristics. A line-mode REPL takes keys as soon
// as it reads its terminal, which its SessionStart hook tells.
func csaAgentInteractive(r InteractiveRequest) (InteractiveInvocation, error) {
	return withSettings(r, "csa-agent-settings.json", InteractiveInvocation{SubmitDelayMS: 20, ReadyMS: 2000}, claudeMCPArgs(r.MCP)...)
}
