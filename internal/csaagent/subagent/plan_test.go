package subagent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/loop"
	"github.com/csa-dev/csa/internal/csaagent/store"
	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// modes is a permission policy's mode switch.
type modes struct {
	mu      sync.Mutex
	mode    string
	history []string
}

func (m *modes) Mode() string { m.mu.Lock(); defer m.mu.Unlock(); return m.mode }
func (m *modes) SetMode(s string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mode = s
	m.history = append(m.history, s)
	return nil
}

// planTool calls the plan hooks as the tools package's will.
type planTool string

func (p planTool) Name() string                         { return string(p) }
func (p planTool) Description() string                  { return "" }
func (p planTool) Schema() json.RawMessage              { return json.RawMessage(`{"type":"object"}`) }
func (p planTool) ConcurrencySafe(json.RawMessage) bool { return false }
func (p planTool) ReadOnly(json.RawMessage) bool        { return true }
func (p planTool) Subject(json.RawMessage) string       { return "" }
func (p planTool) Run(ctx context.Context, env *tool.Env, in json.RawMessage) (tool.Result, error) {
	if p == "EnterPlanMode" {
		if err := env.Agent.EnterPlanMode(); err != nil {
			return tool.Errorf("%v", err), nil
		}
		return tool.Result{Output: "in plan mode"}, nil
	}
	var r struct{ Plan string }
	tool.Decode(in, &r)
	return env.Agent.ExitPlanMode(r.Plan)
}

const thePlan = "# Plan: Fix the parser\n\n1. Read it.\n2. Fix it."

func planModel(after string) llm.Provider {
	return model(func(ctx context.Context, req *llm.Request) (llm.Message, error) {
		switch len(req.Messages) {
		case 1:
			return calls(llm.Block{Type: llm.BlockToolUse, ID: "e", Name: "EnterPlanMode", Input: json.RawMessage(`{}`)}), nil
		case 3:
			in, _ := json.Marshal(map[string]string{"plan": thePlan})
			return calls(llm.Block{Type: llm.BlockToolUse, ID: "x", Name: "ExitPlanMode", Input: in}), nil
		}
		return say(after + ": " + lastUser(req)), nil
	})
}

type recorder struct{ recs []store.Record }

func (r *recorder) Append(rec store.Record) error { r.recs = append(r.recs, rec); return nil }

func runPlan(t *testing.T, start string, approve func(string) (bool, string)) (loop.Outcome, *modes, *recorder, *collector, string) {
	t.Helper()
	m := &modes{mode: start}
	rec := &recorder{}
	sink := newEvents()
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	tools := []tool.Tool{planTool("EnterPlanMode"), planTool("ExitPlanMode")}
	a, _ := newMain(t, planModel("proceeding"), Config{Tools: tools, Modes: m, Plans: rec, Approve: approve,
		Now: func() time.Time { return now }}, sink)
	out := a.Run(context.Background(), llm.UserText("fix the parser"))
	return out, m, rec, sink, a.Config().Env.Cwd
}

func planEvents(c *collector) []string {
	var out []string
	for _, e := range c.list() {
		if e.Kind == event.PlanMode {
			out = append(out, e.Mode+":"+e.Text)
		}
	}
	return out
}

func checkSaved(t *testing.T, cwd string, rec *recorder) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(cwd, ".csa/plans/2026-03-04-plan-fix-the-parser.md"))
	if err != nil || string(data) != thePlan+"\n" {
		t.Fatalf("plan file %q, %v", data, err)
	}
	if len(rec.recs) != 1 || rec.recs[0].Kind != store.KindPlan || rec.recs[0].Text != thePlan {
		t.Fatalf("store records %+v", rec.recs)
	}
}

func TestPlanModeHeadlessStopsWithThePlan(t *testing.T) {
	out, m, rec, sink, cwd := runPlan(t, "default", nil)
	if out.End != loop.EndStopped || out.Text != thePlan || out.Turns != 2 {
		t.Fatalf("outcome %+v", out)
	}
	if strings.Join(m.history, ",") != "plan,default" {
		t.Fatalf("modes %v", m.history)
	}
	if ev := planEvents(sink); len(ev) != 2 || ev[0] != "plan:" || ev[1] != "default:"+thePlan {
		t.Fatalf("plan events %q", ev)
	}
	checkSaved(t, cwd, rec)
}

func TestPlanModeInBypassProceeds(t *testing.T) {
	out, m, rec, _, cwd := runPlan(t, ModeBypass, nil)
	if out.End != loop.EndDone || !strings.HasPrefix(out.Text, "proceeding: ") || !strings.Contains(out.Text, "proceed with it now") {
		t.Fatalf("outcome %+v", out)
	}
	if strings.Join(m.history, ",") != "plan,"+ModeBypass || m.Mode() != ModeBypass {
		t.Fatalf("modes %v", m.history)
	}
	checkSaved(t, cwd, rec)
	// A second plan of the same name gets a file of its own.
	h := NewHooks(Config{Modes: &modes{mode: ModePlan}, Now: func() time.Time { return time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC) }})
	h.Attach(loop.New(loop.Config{Env: &tool.Env{Cwd: cwd}}, nil))
	if res, err := h.ExitPlanMode(thePlan); err != nil || !strings.Contains(res.Output, "2026-03-04-plan-fix-the-parser-2.md") {
		t.Fatalf("second plan %+v, %v", res, err)
	}
}

func TestPlanModeApproval(t *testing.T) {
	out, m, _, _, _ := runPlan(t, "acceptEdits", func(string) (bool, string) { return false, "add tests" })
	if out.End != loop.EndDone || !strings.Contains(out.Text, "did not approve") || !strings.Contains(out.Text, "add tests") || m.Mode() != ModePlan {
		t.Fatalf("rejected: outcome %+v, mode %s", out, m.Mode())
	}
	out, m, _, _, _ = runPlan(t, "acceptEdits", func(string) (bool, string) { return true, "" })
	if out.End != loop.EndDone || !strings.Contains(out.Text, "approved") || m.Mode() != "acceptEdits" {
		t.Fatalf("approved: outcome %+v, mode %s", out, m.Mode())
	}
}

func TestPlanModeRefusals(t *testing.T) {
	h := NewHooks(Config{Getenv: func(string) string { return "" }})
	h.Attach(loop.New(loop.Config{}, nil))
	if err := h.EnterPlanMode(); err == nil {
		t.Fatal("plan mode without a mode switch")
	}
	h = NewHooks(Config{Modes: &modes{mode: "default"}})
	h.Attach(loop.New(loop.Config{}, nil))
	if res, err := h.ExitPlanMode("x"); err != nil || !res.IsError {
		t.Fatalf("exit outside plan mode: %+v %v", res, err)
	}
}
