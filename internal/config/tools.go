package config

// Family is the model family a tool's models come from. Choosing a sub-agent
// from a different family than its parent is what makes a review
// heterogeneous.
type Family string

// Model families.
const (
	FamilyAnthropic Family = "anthropic"
	FamilyOpenAI    Family = "openai"
	FamilyGoogle    Family = "google"
	// FamilyByModel means the family follows the model the tool is set to
	// use (opencode talks to many providers).
	FamilyByModel Family = "depends on model"
)

// Tool names: the closed set of agent programs csa runs.
const (
	ToolClaudeCode = "claude-code"
	ToolCodex      = "codex"
	ToolGeminiCLI  = "gemini-cli"
	ToolOpencode   = "opencode"
)

// ToolInfo describes one supported tool.
type ToolInfo struct {
	Name       string // tool name as used in --tool and [tools.<name>]
	Program    string // program name looked up on PATH
	NPMPackage string // npm package that installs the program
	Family     Family
	// ACPProgram is the tool's Agent Client Protocol agent; "" for none.
	ACPProgram string
}

// InstallHint returns the command that installs the tool's program.
func (t ToolInfo) InstallHint() string {
	return "npm install -g " + t.NPMPackage
}

// Tools returns the supported tools in a fixed order. The slice is the
// caller's own.
func Tools() []ToolInfo {
	return []ToolInfo{
		{ToolClaudeCode, "claude", "@anthropic-ai/claude-code", FamilyAnthropic, "claude-code-acp"},
		{ToolCodex, "codex", "@openai/codex", FamilyOpenAI, "codex-acp"},
		{ToolGeminiCLI, "gemini", "@google/gemini-cli", FamilyGoogle, ""},
		{ToolOpencode, "opencode", "opencode-ai", FamilyByModel, ""},
	}
}

// LookupTool returns the tool called name.
func LookupTool(name string) (ToolInfo, bool) {
	for _, t := range Tools() {
		if t.Name == name {
			return t, true
		}
	}
	return ToolInfo{}, false
}

// ToolNames returns the names of the supported tools, in the order of Tools.
func ToolNames() []string {
	tools := Tools()
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return names
}
