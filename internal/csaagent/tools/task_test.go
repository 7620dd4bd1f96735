package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// hooks is a fake loop.
type hooks struct {
	req     tool.SubagentRequest
	planned string
	inPlan  bool
}

func (h *hooks) EnterPlanMode() error {
	if h.inPlan {
		return errors.New("already in plan mode")
	}
	h.inPlan = true
	return nil
}

func (h *hooks) ExitPlanMode(plan string) (tool.Result, error) {
	h.planned, h.inPlan = plan, false
	return tool.Result{Output: "approved"}, nil
}

func (h *hooks) RunSubagent(ctx context.Context, req tool.SubagentRequest) (tool.Result, error) {
	h.req = req
	return tool.Result{Output: "subagent says hi"}, nil
}

func (h *hooks) SubagentTypes() []tool.SubagentType {
	return []tool.SubagentType{{Name: "Explore", Description: "Fast read-only search"}}
}

func TestTask(t *testing.T) {
	env := newEnv(t)
	in := map[string]any{"description": "Find it", "prompt": "Find the thing", "subagent_type": "Explore", "run_in_background": true}
	check(t, "no agent", call(t, NewTask(nil), env, in), true, "not available")
	h := &hooks{}
	env.Agent = h
	task := NewTask(h.SubagentTypes())
	if !strings.Contains(task.Description(), "- Explore: Fast read-only search") {
		t.Errorf("description lacks the types:\n%s", task.Description())
	}
	if !strings.Contains(NewTask(nil).Description(), "general-purpose") {
		t.Error("default description lacks general-purpose")
	}
	check(t, "run", call(t, task, env, in), false, "subagent says hi")
	want := tool.SubagentRequest{Type: "Explore", Description: "Find it", Prompt: "Find the thing", Background: true}
	if h.req != want {
		t.Errorf("request %+v", h.req)
	}
	check(t, "empty prompt", call(t, task, env, map[string]any{"prompt": "", "subagent_type": "x", "description": "d"}), true, "prompt is empty")
	raw, _ := json.Marshal(in)
	if !task.ConcurrencySafe(raw) || task.Subject(raw) != "Explore" {
		t.Error("Task: want concurrency-safe, subject = subagent_type")
	}
}

func TestPlanMode(t *testing.T) {
	env := newEnv(t)
	check(t, "enter without agent", call(t, NewEnterPlanMode(), env, map[string]any{}), true, "not available")
	check(t, "exit without agent", call(t, NewExitPlanMode(), env, map[string]any{"plan": "p"}), true, "not available")
	h := &hooks{}
	env.Agent = h
	check(t, "enter", call(t, NewEnterPlanMode(), env, map[string]any{}), false, "Entered plan mode")
	check(t, "enter twice", call(t, NewEnterPlanMode(), env, map[string]any{}), true, "already")
	check(t, "empty plan", call(t, NewExitPlanMode(), env, map[string]any{"plan": " "}), true, "plan is empty")
	check(t, "exit", call(t, NewExitPlanMode(), env, map[string]any{"plan": "1. do it"}), false, "approved")
	if h.planned != "1. do it" || h.inPlan {
		t.Errorf("hooks %+v", h)
	}
}
