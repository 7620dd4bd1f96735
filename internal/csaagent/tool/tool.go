// Package tool defines what a tool of csa-agent is and what it may use
// while it runs. The tools themselves live in package tools, one file
// each; the loop runs them through an Executor.
package tool

import (
	"context"
	"encoding/json"

	"github.com/csa-dev/csa/internal/csaagent/llm"
)

// Tool is one capability offered to the model.
type Tool interface {
	// Name is the name the model calls it by (Claude Code's names: Read,
	// Edit, Bash...), so scripts and habits carry over.
	Name() string
	// Description tells the model when and how to use it.
	Description() string
	// Schema is the JSON Schema of its input.
	Schema() json.RawMessage
	// ConcurrencySafe reports whether this call may run alongside others
	// of the same turn (a Read may; a Write or most Bash commands may not).
	ConcurrencySafe(input json.RawMessage) bool
	// ReadOnly reports whether this call changes nothing (allowed in
	// plan mode).
	ReadOnly(input json.RawMessage) bool
	// Subject is what permission rules match for this call: the command
	// of a Bash call, the path of a file tool, the URL of a fetch; "" when
	// rules only name the tool.
	Subject(input json.RawMessage) string
	// Run performs the call. A failure the model should see (a missing
	// file, a failed command) is a Result with IsError; the error return
	// is for infrastructure only and ends the run.
	Run(ctx context.Context, env *Env, input json.RawMessage) (Result, error)
}

// Result is what goes back to the model.
type Result struct {
	Output  string
	IsError bool
	// Response is the result as Claude Code reports it to hooks
	// (tool_response) and in its transcripts (toolUseResult): an object
	// of the tool's own shape. Nil: Output stands for it.
	Response any
}

// Errorf is a failed call's result.
func Errorf(format string, args ...any) Result {
	return Result{Output: sprintf(format, args...), IsError: true}
}

// Spec describes t to the model.
func Spec(t Tool) llm.ToolSpec {
	return llm.ToolSpec{Name: t.Name(), Description: t.Description(), Schema: t.Schema()}
}

// Decode unmarshals a call's input, for tools.
func Decode(input json.RawMessage, v any) error {
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	return json.Unmarshal(input, v)
}
