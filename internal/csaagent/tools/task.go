package tools

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// Task starts a subagent. Its description lists the subagent types, so it
// is built with them (NewTask); All has it with none listed.
type Task struct {
	base[taskInput]
	types []tool.SubagentType
}

// NewTask is the Task tool offering types.
func NewTask(types []tool.SubagentType) *Task {
	t := &Task{types: append([]tool.SubagentType(nil), types...)}
	t.base = base[taskInput]{"Task", taskDesc(t.types)}
	return t
}

type taskInput struct {
	Description     string `json:"description" jsonschema:"A short (3-5 word) description of the task"`
	Prompt          string `json:"prompt" jsonschema:"The task for the agent to perform"`
	SubagentType    string `json:"subagent_type" jsonschema:"The type of specialized agent to use for this task"`
	RunInBackground bool   `json:"run_in_background,omitempty" jsonschema:"Run the subagent in the background and continue working; its result arrives later"`
}

func taskDesc(types []tool.SubagentType) string {
	var b strings.Builder
	b.WriteString(`Launch a new agent to handle complex, multi-step tasks autonomously.

Available agent types and the tools they have access to:
`)
	if len(types) == 0 {
		b.WriteString("- general-purpose: General-purpose agent for researching complex questions, searching for code, and executing multi-step tasks. (Tools: *)\n")
	}
	for _, t := range types {
		// Each with its tools, as Claude Code lists them.
		tools := "All tools"
		if t.Tools != nil {
			tools = strings.Join(t.Tools, ", ")
		}
		b.WriteString("- " + t.Name + ": " + t.Description + " (Tools: " + tools + ")\n")
	}
	b.WriteString(`
When using the Task tool, you must specify a subagent_type parameter to select which agent type to use.

When NOT to use the Task tool:
- To read a specific file path: use Read or Glob instead, to find the match more quickly
- To search for a specific class or function definition like "class Foo": use Glob instead
- To search code within a specific file or set of 2-3 files: use Read instead

Usage notes:
- Launch multiple agents concurrently whenever possible, to maximize performance; to do that, use a single message with multiple tool uses
- When the agent is done, it will return a single message back to you. The result returned by the agent is not visible to the user. To show the user the result, you should send a text message back to the user with a concise summary of the result.
- Each agent invocation is stateless. You will not be able to send additional messages to the agent, nor will the agent be able to communicate with you outside of its final report. Therefore, your prompt should contain a highly detailed task description for the agent to perform autonomously and you should specify exactly what information the agent should return back to you in its final and only message to you.
- The agent's outputs should generally be trusted
- Clearly tell the agent whether you expect it to write code or just to do research (search, file reads, web fetches, etc.), since it is not aware of the user's intent
- With run_in_background the call returns at once and the agent's result arrives later
- If the agent description mentions that it should be used proactively, then you should try your best to use it without the user having to ask for it first.`)
	return b.String()
}

// ConcurrencySafe is true: subagents run side by side, each with its own
// tools and permission checks.
func (*Task) ConcurrencySafe(json.RawMessage) bool { return true }

// ReadOnly is true so plan mode may research with subagents: a subagent's
// own calls are checked against its own policy, which the loop must give
// the parent's mode.
func (*Task) ReadOnly(json.RawMessage) bool     { return true }
func (*Task) Subject(in json.RawMessage) string { return field(in, "subagent_type") }

func (t *Task) Run(ctx context.Context, env *tool.Env, input json.RawMessage) (tool.Result, error) {
	in, bad, ok := t.parse(input)
	if !ok {
		return bad, nil
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return tool.Errorf("prompt is empty: tell the agent what to do"), nil
	}
	if env.Agent == nil {
		return tool.Errorf("subagents are not available here"), nil
	}
	return env.Agent.RunSubagent(ctx, tool.SubagentRequest{
		Type: in.SubagentType, Description: in.Description, Prompt: in.Prompt, Background: in.RunInBackground,
	})
}
