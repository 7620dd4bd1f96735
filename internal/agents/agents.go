// Package agents knows the closed set of agent programs csa runs and, per
// tool, how to invoke it headless and read its structured output. Adapters
// are data plus small functions; they never start processes themselves.
package agents

import (
	"strings"

	"github.com/csa-dev/csa/internal/session"
)

// Tool names one of the closed set of agent tools (see Registry).
type Tool string

// The tools, in csa's stable order (the order of Registry).
const (
	ClaudeCode Tool = "claude-code"
	Codex      Tool = "codex"
	GeminiCLI  Tool = "gemini-cli"
	Opencode   Tool = "opencode"
	CSAAgent   Tool = "csa-agent"
)

// Model families, used to pick a reviewer unlike its caller.
const (
	FamilyAnthropic = "anthropic"
	FamilyOpenAI    = "openai"
	FamilyGoogle    = "google"
)

// Request is what a run asks of an adapter.
type Request struct {
	Prompt string
	Model  string
	// Effort is the thinking or reasoning effort ("" for the tool's default).
	Effort string
	// Yolo lets the agent act without asking (it runs headless).
	Yolo bool
	// ResumeID continues that provider session.
	ResumeID string
	// NewSessionID is a fresh UUID for tools that let the caller name the
	// provider session, so its id is known before the program starts.
	NewSessionID string
	// Root reports that csa runs as root (some programs refuse yolo then).
	Root bool
	// MCP are the MCP servers to give the program for this run, added to
	// the user's own. A tool without an MCP client ignores them.
	MCP []MCPServer
	// Getenv reads the environment the program inherits (nil for none),
	// for a variable csa adds to rather than replaces.
	Getenv func(string) string
}

// Invocation is how to start the program for a Request.
type Invocation struct {
	Args []string // argv after the program
	Env  []string // added to the environment
	// Stdin, when non-nil, is written to the program's standard input
	// (long prompts go there, never in argv).
	Stdin []byte
	// ProviderSessionID is known up front when the caller chose it.
	ProviderSessionID string
}

// Outcome is what a finished run produced, as far as the adapter can tell
// from the program's output.
type Outcome struct {
	Result            string
	ProviderSessionID string
	// Model is the model the program said it used; "" when it did not.
	Model   string
	Usage   *session.Usage
	Failure *session.Failure
}

// Parser turns the program's stdout, line by line, into normalised events.
// Feed may be given partial lines (binary output, lines over 1 MiB); it
// must never fail, only skip, and must not keep line after returning.
type Parser interface {
	Feed(line []byte) []Event
	// Finish is called once the program has exited; stderr is the tail of
	// its standard error, used to classify failures.
	Finish(exitCode int, stderr string) Outcome
}

// Adapter drives a tool headless: how to invoke it for a request, and how
// to read its structured output.
type Adapter interface {
	Build(req Request) (Invocation, error)
	NewParser() Parser
}

// MaxArgvPrompt is the largest prompt passed in argv; longer ones go on
// stdin (argv is limited and visible to every user in ps).
const MaxArgvPrompt = 100 * 1024

// FamilyOfModel guesses the model family from a model name, for tools such
// as opencode that can drive any provider.
func FamilyOfModel(model string) string {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "claude") || strings.HasPrefix(m, "anthropic/"):
		return FamilyAnthropic
	case strings.Contains(m, "gpt") || strings.HasPrefix(m, "openai/") || strings.Contains(m, "codex") || strings.HasPrefix(m, "o3") || strings.HasPrefix(m, "o4"):
		return FamilyOpenAI
	case strings.Contains(m, "gemini") || strings.HasPrefix(m, "google/"):
		return FamilyGoogle
	}
	return ""
}
