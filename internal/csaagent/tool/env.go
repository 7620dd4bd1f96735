package tool

import (
	"context"
	"fmt"
)

// Env is what tools may use: the working directory and roots they are
// confined to, the record of files read, background jobs, todos, and the
// hooks into the loop (plan mode, subagents). One Env serves one agent
// (a subagent has its own, sharing Jobs).
type Env struct {
	// Cwd is the working directory; relative paths are joined to it.
	Cwd string
	// Roots are the directories file tools may touch: Cwd and the
	// configured extra roots.
	Roots []string
	// Files records what was read, so Edit can refuse a file never read
	// or changed since.
	Files *FileState
	// Jobs are the background shell jobs.
	Jobs *Jobs
	// Todos is the todo list (TodoWrite).
	Todos *Todos
	// SpillDir holds output too long to return (Bash's cap); created on
	// first use.
	SpillDir string
	// Agent hooks the tools that act on the loop itself; nil outside a
	// loop (then those tools fail cleanly).
	Agent AgentHooks
}

// AgentHooks are the loop's side of the tools that drive it.
type AgentHooks interface {
	// EnterPlanMode switches to read-only planning.
	EnterPlanMode() error
	// ExitPlanMode presents plan; it returns what to tell the model
	// (proceed, or stop with the plan as the result).
	ExitPlanMode(plan string) (Result, error)
	// RunSubagent runs a subagent (the Task tool) and returns its answer.
	RunSubagent(ctx context.Context, req SubagentRequest) (Result, error)
	// SubagentTypes lists the subagents the Task tool may start, with
	// their descriptions, for its description.
	SubagentTypes() []SubagentType
}

// SubagentRequest is one Task call.
type SubagentRequest struct {
	Type        string // subagent_type; "" or general-purpose for the default
	Description string
	Prompt      string
	Background  bool
}

// SubagentType is one subagent definition, as the Task tool shows it.
type SubagentType struct {
	Name        string
	Description string
	// Tools are those its definition lists; nil: all.
	Tools []string
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
