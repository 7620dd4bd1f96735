package review

import "testing"

func votes(vs ...string) []Vote {
	out := make([]Vote, len(vs))
	for i, v := range vs {
		out[i] = Vote{Verdict: v, Weight: 1}
	}
	return out
}

func TestDecide(t *testing.T) {
	tests := []struct {
		strategy string
		votes    []Vote
		want     string
	}{
		{Majority, votes(Pass, Pass), Pass},
		{Majority, votes(Pass, Fail), NoConsensus},
		{Majority, votes(Pass, Fail, Fail), Fail},
		{Majority, votes(Pass, Pass, Fail), Pass},
		{Majority, votes(Pass, Uncertain, Uncertain), Pass},
		{Majority, votes(Uncertain, Uncertain), NoConsensus},
		{Majority, votes(Pass, Unavailable, Unavailable), Pass},
		{Majority, votes(Fail, Unavailable), Fail},
		{Majority, votes(Unavailable, Unavailable), NoConsensus},
		{Majority, nil, NoConsensus},
		{Unanimous, votes(Pass, Pass), Pass},
		{Unanimous, votes(Pass, Pass, Fail), Fail},
		{Unanimous, votes(Pass, Uncertain), NoConsensus},
		{Unanimous, votes(Pass, Unavailable), Pass},
		{Unanimous, votes(Unavailable), NoConsensus},
		{Weighted, []Vote{{Pass, 1}, {Pass, 1}, {Fail, 3}}, Fail},
		{Weighted, []Vote{{Pass, 2}, {Fail, 2}}, NoConsensus},
		{Weighted, []Vote{{Pass, 0.5}, {Fail, 0}, {Uncertain, 9}}, Pass},
		{Weighted, []Vote{{Pass, 0}, {Fail, 0}}, NoConsensus},
		{Weighted, []Vote{{Unavailable, 5}, {Fail, 1}}, Fail},
	}
	for _, tc := range tests {
		got, tally := Decide(tc.strategy, tc.votes)
		if got != tc.want {
			t.Errorf("%s %v: %s, want %s (%s)", tc.strategy, tc.votes, got, tc.want, tally.Describe())
		}
	}
}

func TestTally(t *testing.T) {
	_, tl := Decide(Weighted, []Vote{{Pass, 1}, {Fail, 3}, {Uncertain, 2}, {Unavailable, 4}})
	if tl.Pass != 1 || tl.Fail != 1 || tl.Uncertain != 1 || tl.Unavailable != 1 || *tl.PassWeight != 1 || *tl.FailWeight != 3 {
		t.Fatalf("%+v", tl)
	}
	if d := tl.Describe(); d != "1 pass, 1 fail, 1 uncertain, 1 unavailable (weights 1 pass, 3 fail)" {
		t.Fatal(d)
	}
	if _, tl := Decide(Majority, votes(Pass)); tl.PassWeight != nil {
		t.Fatal("weights outside weighted consensus")
	}
}

func TestWeightOf(t *testing.T) {
	w := map[string]float64{"codex": 2, "codex/gpt-5": 5, "gemini-cli": 0}
	for _, tc := range []struct {
		tool, model string
		want        float64
	}{
		{"codex", "gpt-5", 5},
		{"codex", "o3", 2},
		{"codex", "", 2},
		{"gemini-cli", "x", 0},
		{"claude-code", "sonnet", 1},
	} {
		if got := WeightOf(w, tc.tool, tc.model); got != tc.want {
			t.Errorf("%s/%s: %g, want %g", tc.tool, tc.model, got, tc.want)
		}
	}
}

func TestExitFor(t *testing.T) {
	if ExitFor(Pass) != 0 || ExitFor(Fail) != 1 || ExitFor(NoConsensus) != 2 {
		t.Fatal("review exit statuses")
	}
	if DebateExit(Agree) != 0 || DebateExit(Revise) != 1 || DebateExit(Reject) != 1 || DebateExit(NoVerdict) != 2 {
		t.Fatal("debate exit statuses")
	}
}
