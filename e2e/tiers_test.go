package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const tierScript = `
[[rule]]
name = "busy"
model = "busy-model"
contains = "e2e tier"
  [[rule.step]]
  error = "rate_limit"
  message = "Scripted rate limit."

[[rule]]
name = "answer"
contains = "e2e tier"
  [[rule.step]]
  text = "Answered by the tier."
`

const tierConfig = `
[tiers.main]
models = ["codex/openai/busy-model", "claude-code/anthropic/sonnet"]
[tiers.rr]
models = ["codex/other-openai-account/gpt-5.5", "claude-code/anthropic/sonnet"]  # the failover above cooled "openai" down
strategy = "round-robin"
[failover]
retries = 1
backoff = "10ms"
`

// TestTierFailover: real codex gets a 429 from its model, is retried once,
// and the run fails over to real claude-code; then round-robin alternates
// the two over four runs.
func TestTierFailover(t *testing.T) {
	w := newWorld(t, tierScript)
	if err := os.WriteFile(filepath.Join(w.proj, ".csa", "config.toml"), []byte(tierConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	var r struct {
		result
		Tier          string `json:"tier"`
		FallbackChain []struct {
			SessionID, Spec, Class string
		} `json:"fallback_chain"`
	}
	out, code, stderr := w.csa("run", "--json", "--tier", "main", "e2e tier failover")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s%s", code, out, stderr, w.requests())
	}
	decode(t, out, &r)
	if r.Tool != "claude-code" || r.Status != "completed" || !strings.Contains(r.Result, "Answered by the tier.") {
		t.Fatalf("want claude-code to answer after the failover: %s", out)
	}
	if len(r.FallbackChain) != 2 || r.FallbackChain[0].Spec != "codex/openai/busy-model" || r.FallbackChain[0].Class != "rate_limited" {
		t.Fatalf("fallback chain: %+v", r.FallbackChain)
	}

	var tools []string
	for i := 0; i < 4; i++ {
		out, code, stderr := w.csa("run", "--json", "--tier", "rr", "e2e tier rotation")
		if code != 0 {
			t.Fatalf("run %d: exit %d\n%s\n%s", i, code, out, stderr)
		}
		var rr result
		decode(t, out, &rr)
		tools = append(tools, rr.Tool)
	}
	if tools[0] == tools[1] || tools[0] != tools[2] || tools[1] != tools[3] {
		t.Fatalf("round-robin over four runs gave %v", tools)
	}
}
