package runner

import (
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cost"
	"github.com/csa-dev/csa/internal/session"
)

// TestBudgetSumsTheTree: the run's own reported usage, at the model the
// program says it uses, plus its descendants' recorded costs, against
// --max-cost; a model without a price counts nothing.
func TestBudgetSumsTheTree(t *testing.T) {
	store, err := session.Open(t.TempDir() + "/sessions")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	root := session.NewID(now)
	save := func(st *session.State) {
		st.ID, st.Status, st.CreatedAt = session.NewID(now), session.Completed, now.UTC()
		if err := store.MakeDir(st.ID); err != nil {
			t.Fatal(err)
		}
		if err := store.Save(st); err != nil {
			t.Fatal(err)
		}
	}
	m := 1_000_000
	// A child and a grandchild at 1 USD per million input tokens each; a
	// stranger that is not of the tree.
	child := &session.State{ParentID: root, Tool: "codex", Model: "m", Usage: &session.Usage{InputTokens: int64(m)}}
	save(child)
	save(&session.State{ParentID: child.ID, Tool: "codex", Model: "m", Usage: &session.Usage{InputTokens: int64(m)}})
	save(&session.State{Tool: "codex", Model: "m", Usage: &session.Usage{InputTokens: 50 * int64(m)}})
	save(&session.State{ParentID: root, Tool: "codex", Model: "unpriced", Usage: &session.Usage{InputTokens: 50 * int64(m)}})

	sp := &Spec{MaxCostUSD: 2.5, Prices: map[string]cost.Price{"m": {Input: 1, Output: 2}}}
	b := newBudget(sp, "asked-for")
	if end := b.check(store, root, "claude-code"); end != nil {
		t.Fatalf("2 USD of 2.5 stopped the run: %+v", end)
	}
	// The program says it uses m and reports 0.25 million output tokens:
	// 0.5 USD more is 2.5, not over.
	b.note(agents.Event{Type: agents.EvSession, Data: agents.SessionEvent{ID: "p", Model: "m"}})
	b.note(agents.Event{Type: agents.EvUsage, Data: session.Usage{OutputTokens: int64(m) / 4}})
	if end := b.check(store, root, "claude-code"); end != nil {
		t.Fatalf("2.5 USD of 2.5 stopped the run: %+v", end)
	}
	b.note(agents.Event{Type: agents.EvUsage, Data: session.Usage{InputTokens: 1}})
	end := b.check(store, root, "claude-code")
	if end == nil || end.class != session.FailBudget || end.status != session.Failed {
		t.Fatalf("over the budget: %+v", end)
	}
	if newBudget(&Spec{}, "") != nil {
		t.Error("a run without --max-cost has a budget")
	}
}
