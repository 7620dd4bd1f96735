package cost

import (
	"math"
	"testing"

	"github.com/csa-dev/csa/internal/session"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestLookupMatchesNamesAndDatedVersionsOnly(t *testing.T) {
	tab := Default()
	for model, want := range map[string]float64{
		"claude-sonnet-4-5":                    3,
		"claude-sonnet-4-5-20250929":           3,
		"anthropic/claude-sonnet-4-5-20250929": 3,
		"claude-sonnet-4-5@20250929":           3,
		"Claude-Opus-4-1-20250805":             15,
		"claude-opus-4-20250514":               15,
		"gpt-5-2025-08-07":                     1.25,
		"openai/gpt-5-mini":                    0.25,
		"gemini-2.5-flash":                     0.30,
	} {
		if p, ok := tab.Lookup(model); !ok || p.Input != want {
			t.Errorf("Lookup(%q) = %+v, %v; want input %v", model, p, ok, want)
		}
	}
	// Unknown, aliases and other models that merely start with a priced
	// name have no price.
	for _, model := range []string{"", "sonnet", "gpt-5-pro", "claude-sonnet-6", "claude-opus-4-9", "gemini-2.5-pro-preview-05-06", "gpt-5-2025"} {
		if p, ok := tab.Lookup(model); ok {
			t.Errorf("Lookup(%q) = %+v, want no price", model, p)
		}
	}
}

func TestSessionCostFollowsEachToolsWayOfCountingCachedInput(t *testing.T) {
	tab := Default()
	// Claude Code: input excludes cache reads. 1000 in, 200 out, 5000 read
	// of claude-sonnet-4-5: (1000*3 + 200*15 + 5000*0.3) / 1e6.
	claude := &session.State{Tool: "claude-code", Model: "claude-sonnet-4-5",
		Usage: &session.Usage{InputTokens: 1000, OutputTokens: 200, CachedTokens: 5000}}
	if c := tab.Session(claude); c == nil || !near(*c, 0.0075) {
		t.Errorf("claude cost = %v, want 0.0075", c)
	}
	// Codex: input includes the cached 4000. (2000*1.25 + 4000*0.125 +
	// 500*10) / 1e6.
	codex := &session.State{Tool: "codex", Model: "gpt-5",
		Usage: &session.Usage{InputTokens: 6000, OutputTokens: 500, CachedTokens: 4000}}
	if c := tab.Session(codex); c == nil || !near(*c, 0.008) {
		t.Errorf("codex cost = %v, want 0.008", c)
	}
	if tok := TokensOf("codex", codex.Usage); tok != (Tokens{Input: 2000, Output: 500, CacheRead: 4000}) {
		t.Errorf("codex tokens = %+v", tok)
	}
	// The model the program said it used is priced, not the alias asked
	// for; cache writes at their own price: (1000*3 + 200*15 + 5000*0.3 +
	// 2000*3.75) / 1e6.
	reported := &session.State{Tool: "claude-code", Model: "sonnet", ProviderModel: "claude-sonnet-4-5-20250929",
		Usage: &session.Usage{InputTokens: 1000, OutputTokens: 200, CachedTokens: 5000, CacheWriteTokens: 2000}}
	if c := tab.Session(reported); c == nil || !near(*c, 0.015) {
		t.Errorf("reported model cost = %v, want 0.015", c)
	}
	// Unknown model, no usage: no cost. No tokens used: nothing.
	if c := tab.Session(&session.State{Tool: "claude-code", Model: "sonnet", Usage: claude.Usage}); c != nil {
		t.Errorf("alias priced at %v", *c)
	}
	if c := tab.Session(&session.State{Tool: "claude-code", Model: "claude-sonnet-4-5"}); c != nil {
		t.Errorf("no usage priced at %v", *c)
	}
	if c := tab.Session(&session.State{Tool: "codex", Model: "unknown", Usage: &session.Usage{}}); c == nil || *c != 0 {
		t.Errorf("zero usage cost = %v, want 0", c)
	}
}

func TestTreeSumsDescendantsAndCountsUnpriced(t *testing.T) {
	tab := New(map[string]Price{"m": {Input: 1, Output: 2}}, "")
	u := func(in, out int64) *session.Usage { return &session.Usage{InputTokens: in, OutputTokens: out} }
	states := []*session.State{
		{ID: "root", Tool: "claude-code", Model: "m", Usage: u(1_000_000, 0)},                    // 1
		{ID: "kid", ParentID: "root", Tool: "claude-code", Model: "m", Usage: u(0, 1_000_000)},   // 2
		{ID: "grandkid", ParentID: "kid", Tool: "codex", Model: "m", Usage: u(500_000, 250_000)}, // 1
		{ID: "odd", ParentID: "kid", Tool: "codex", Model: "other", Usage: u(1, 1)},              // unpriced
		{ID: "quiet", ParentID: "kid", Tool: "codex", Model: "other"},                            // no usage
		{ID: "stranger", Tool: "codex", Model: "m", Usage: u(9_000_000, 0)},
	}
	tr := tab.TreeOf(states, "root")
	if tr.USD == nil || !near(*tr.USD, 4) || tr.Unpriced != 1 {
		t.Errorf("tree = %v %+v, want 4 USD and 1 unpriced", deref(tr.USD), tr)
	}
	if tr := tab.TreeOf(states, "grandkid"); tr.USD == nil || !near(*tr.USD, 1) || tr.Unpriced != 0 {
		t.Errorf("leaf tree = %+v", tr)
	}
	if tr := tab.TreeOf(states, "odd"); tr.USD != nil || tr.Unpriced != 1 {
		t.Errorf("unpriced leaf tree = %+v", tr)
	}
	if tr := tab.TreeOf(states, "quiet"); tr.USD != nil || tr.Unpriced != 0 {
		t.Errorf("unused leaf tree = %+v", tr)
	}
}

func TestFormatKeepsCheapSessionsVisible(t *testing.T) {
	for usd, want := range map[float64]string{0: "$0.00", 12.345: "$12.35", 0.01: "$0.01", 0.00141: "$0.0014", 0.000047: "$0.000047", 1e-12: "$0.0000000000"} {
		if got := Format(usd); got != want {
			t.Errorf("Format(%v) = %q, want %q", usd, got, want)
		}
	}
}
