package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// TodoWrite replaces the agent's todo list.
type TodoWrite struct{ base[todoWriteInput] }

// NewTodoWrite is the TodoWrite tool.
func NewTodoWrite() *TodoWrite {
	return &TodoWrite{base[todoWriteInput]{"TodoWrite", todoDesc}}
}

type todoWriteInput struct {
	Todos []tool.Todo `json:"todos" jsonschema:"The updated todo list"`
}

const todoDesc = `Use this tool to create and manage a structured task list for your current session. This helps you track progress, organize complex tasks, and demonstrate thoroughness to the user.

When to use it:
- Complex multi-step tasks (3 or more distinct steps), or when the user gives several tasks
- When the user asks for a todo list
- After receiving new instructions: capture the requirements as todos
- When you start a task: mark it in_progress BEFORE beginning work
- After completing a task: mark it completed at once and add any follow-up tasks found along the way

When NOT to use it: a single, trivial or purely conversational task.

Rules:
- Each call replaces the whole list: send every item, with its current status.
- Statuses: pending (not started), in_progress (working on it now), completed (finished).
- Exactly one task should be in_progress while you work (never more than one).
- Only mark a task completed when it is fully done: not when tests fail, the implementation is partial, or errors are unresolved; then keep it in_progress and add a task for the blocker.
- Each item needs content (imperative: "Run tests") and activeForm (present continuous: "Running tests").`

// ConcurrencySafe is false: the list is shared state replaced whole, so two
// writes in one turn would race for the last word.
func (*TodoWrite) ConcurrencySafe(json.RawMessage) bool { return false }

// ReadOnly is true: it changes no file, and planning needs it.
func (*TodoWrite) ReadOnly(json.RawMessage) bool     { return true }
func (*TodoWrite) Subject(in json.RawMessage) string { return "" }

func (t *TodoWrite) Run(ctx context.Context, env *tool.Env, input json.RawMessage) (tool.Result, error) {
	in, bad, ok := t.parse(input)
	if !ok {
		return bad, nil
	}
	if err := validateTodos(in.Todos); err != nil {
		return tool.Errorf("%v", err), nil
	}
	if env.Todos == nil {
		return tool.Errorf("no todo list here"), nil
	}
	env.Todos.Set(in.Todos)
	return tool.Result{Output: "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable"}, nil
}

func validateTodos(todos []tool.Todo) error {
	var problems []string
	inProgress := 0
	for i, t := range todos {
		if strings.TrimSpace(t.Content) == "" {
			problems = append(problems, fmt.Sprintf("todo %d has empty content", i+1))
		}
		switch t.Status {
		case "pending", "completed":
		case "in_progress":
			inProgress++
		default:
			problems = append(problems, fmt.Sprintf("todo %d has status %q; use pending, in_progress or completed", i+1, t.Status))
		}
	}
	if inProgress > 1 {
		problems = append(problems, fmt.Sprintf("%d todos are in_progress; at most one may be", inProgress))
	}
	if problems != nil {
		return fmt.Errorf("invalid todo list: %s", strings.Join(problems, "; "))
	}
	return nil
}
