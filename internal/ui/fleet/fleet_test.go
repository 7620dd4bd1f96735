package fleet

import (
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/interactive"
	"github.com/csa-dev/csa/internal/session"
)

func TestClassesHaveDistinctSymbolsAndLabels(t *testing.T) {
	syms, labels := map[string]bool{}, map[string]bool{}
	for _, c := range Classes {
		if syms[c.Symbol()] || labels[c.Label()] {
			t.Fatalf("%s shares its symbol %q or label %q", c, c.Symbol(), c.Label())
		}
		syms[c.Symbol()], labels[c.Label()] = true, true
	}
}

func TestClassOfRecordAndVerdict(t *testing.T) {
	for st, want := range map[session.Status]Class{session.Pending: Working, session.Running: Working, session.Completed: Done,
		session.Killed: Done, session.Failed: Failed, session.Crashed: Failed, session.TimedOut: Failed} {
		if got := classOf(st); got != want {
			t.Errorf("classOf(%s) = %s, want %s", st, got, want)
		}
	}
	v := func(s interactive.State, submits int) interactive.Verdict {
		return interactive.Verdict{State: s, Signals: interactive.Signals{Submits: submits}}
	}
	for _, c := range []struct {
		v    interactive.Verdict
		want Class
	}{
		{v(interactive.WaitingInput, 1), NeedsInput}, {v(interactive.WaitingInput, 0), Idle},
		{v(interactive.InProgress, 1), Working}, {v(interactive.JustStarted, 0), Working},
		{v(interactive.Stuck, 1), Stuck}, {v(interactive.Degraded, 1), Unknown},
		{v(interactive.Completed, 1), Done}, {v(interactive.Killed, 1), Done}, {v(interactive.Crashed, 1), Failed},
	} {
		if got := classOfVerdict(c.v); got != c.want {
			t.Errorf("classOfVerdict(%s, %d submits) = %s, want %s", c.v.State, c.v.Signals.Submits, got, c.want)
		}
	}
}

func TestTreeOrdersCollapsesAndFilters(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	row := func(id, parent string, s int, last string) *Row {
		r := &Row{ID: id, ParentID: parent, CreatedAt: t0.Add(time.Duration(s) * time.Second), Tool: "codex", LastLine: last}
		r.setClass(Working)
		return r
	}
	rows := []*Row{row("B", "", 2, ""), row("A", "", 1, ""), row("A2", "A", 4, "the deep answer"), row("A1", "A", 3, ""),
		row("O", "GONE", 0, "")}
	ids := func(ls []Line) string {
		var b []string
		for _, l := range ls {
			b = append(b, strings.Repeat(".", l.Level)+l.Row.ID)
		}
		return strings.Join(b, " ")
	}
	if got := ids(Tree(rows, nil, "")); got != "O A .A1 .A2 B" {
		t.Errorf("tree %s", got)
	}
	if got := Tree(rows, map[string]bool{"A": true}, ""); ids(got) != "O A B" || got[1].Kids != 2 || !got[1].Hidden {
		t.Errorf("collapsed %s %+v", ids(got), got)
	}
	// A match keeps the path to it, and its subtree.
	if got := ids(Tree(rows, nil, "DEEP answer")); got != "A .A2" {
		t.Errorf("filtered %s", got)
	}
	rows[1].LastLine = "the root"
	if got := ids(Tree(rows, nil, "root")); got != "A .A1 .A2" {
		t.Errorf("filtered %s", got)
	}
}

func TestLastLine(t *testing.T) {
	for in, want := range map[string]string{"one\ntwo\n\n  ": "two", "  only  ": "only", "": "", "a\n  b  \n": "b"} {
		if got := lastLine(in); got != want {
			t.Errorf("lastLine(%q) = %q, want %q", in, got, want)
		}
	}
}
