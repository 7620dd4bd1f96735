package tools

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// EnterPlanMode switches the agent to read-only planning.
type EnterPlanMode struct{ base[struct{}] }

// NewEnterPlanMode is the EnterPlanMode tool.
func NewEnterPlanMode() *EnterPlanMode {
	return &EnterPlanMode{base[struct{}]{"EnterPlanMode", enterPlanDesc}}
}

const enterPlanDesc = `Switches to plan mode: from now on only read-only tools work (Read, Glob, Grep, LS, WebFetch, TodoWrite, read-only Bash, subagents), until you present a plan with ExitPlanMode. Use it before a large or risky change, to explore the code and design the approach before touching anything, or when the user asks you to plan first.`

// ConcurrencySafe is false: it changes what the rest of the turn may do.
func (*EnterPlanMode) ConcurrencySafe(json.RawMessage) bool { return false }

// ReadOnly is true: it only takes capabilities away.
func (*EnterPlanMode) ReadOnly(json.RawMessage) bool  { return true }
func (*EnterPlanMode) Subject(json.RawMessage) string { return "" }

func (*EnterPlanMode) Run(ctx context.Context, env *tool.Env, input json.RawMessage) (tool.Result, error) {
	if env.Agent == nil {
		return tool.Errorf("plan mode is not available here"), nil
	}
	if err := env.Agent.EnterPlanMode(); err != nil {
		return tool.Errorf("cannot enter plan mode: %v", err), nil
	}
	return tool.Result{Output: "Entered plan mode. Explore the codebase with read-only tools and design your approach; do not edit files or run commands that change anything. When the plan is ready, present it with ExitPlanMode."}, nil
}

// ExitPlanMode presents the plan and leaves plan mode.
type ExitPlanMode struct{ base[exitPlanInput] }

// NewExitPlanMode is the ExitPlanMode tool.
func NewExitPlanMode() *ExitPlanMode {
	return &ExitPlanMode{base[exitPlanInput]{"ExitPlanMode", exitPlanDesc}}
}

type exitPlanInput struct {
	Plan string `json:"plan" jsonschema:"The plan you came up with, that you want to run by the user for approval. Supports markdown. The plan should be pretty concise."`
}

const exitPlanDesc = `Use this tool when you are in plan mode and have finished planning and are ready to code. This will present your plan and leave plan mode; the result says whether to proceed.

IMPORTANT: Only use this tool when the task requires planning the implementation steps of a task that requires writing code. For research tasks where you're gathering information, searching files, reading files or in general trying to understand the codebase — do NOT use this tool.

Before using this tool, make sure the plan is clear and unambiguous; resolve open questions by exploring first.`

func (*ExitPlanMode) ConcurrencySafe(json.RawMessage) bool { return false }

// ReadOnly is true: it must be callable in plan mode, to leave it.
func (*ExitPlanMode) ReadOnly(json.RawMessage) bool  { return true }
func (*ExitPlanMode) Subject(json.RawMessage) string { return "" }

func (x *ExitPlanMode) Run(ctx context.Context, env *tool.Env, input json.RawMessage) (tool.Result, error) {
	in, bad, ok := x.parse(input)
	if !ok {
		return bad, nil
	}
	if strings.TrimSpace(in.Plan) == "" {
		return tool.Errorf("plan is empty: give the plan to present"), nil
	}
	if env.Agent == nil {
		return tool.Errorf("plan mode is not available here"), nil
	}
	return env.Agent.ExitPlanMode(in.Plan)
}
