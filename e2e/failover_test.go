package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/testkit/devenv"
)

// failoverScript rate-limits the first model (by model name, or for
// OpenCode, which knows only its configured model, by its API) and lets
// the next one answer.
const failoverScript = `
[[rule]]
name = "busy"
%s
contains = "e2e failover"
  [[rule.step]]
  error = "rate_limit"
  message = "Rate limit reached for requests."

[[rule]]
name = "answer"
contains = "e2e failover"
  [[rule.step]]
  text = "Answered by the next model."
`

// nextOf is the model a tier falls over to after tool's: another
// program, one quick to answer.
func nextOf(tool string) string {
	if tool == "codex" {
		return "claude-code/anthropic-2/sonnet"
	}
	return "codex/openai-2/gpt-5"
}

// TestRealFailoverOnAgentRetries: each real program, with its own retry
// policy (Claude Code and Gemini CLI retry a 429 for minutes), reports its
// retries; csa records them and fails the tier over after two, to
// another program that answers.
func TestRealFailoverOnAgentRetries(t *testing.T) {
	for _, tl := range tools {
		t.Run(tl.name, func(t *testing.T) {
			busy, first := `model = "busy"`, tl.name+"/p1/busy"
			switch tl.name {
			case "opencode":
				busy, first = `api = "chat"`, "opencode/csa/scripted"
			case "csa-agent": // provider/model: a provider it speaks
				first = "csa-agent/anthropic/busy"
			}
			w := newWorldWith(t, fmt.Sprintf(failoverScript, busy), devenv.Options{Retries: devenv.ProgramRetries})
			cfg := fmt.Sprintf("[tiers.t]\nmodels = [%q, %q]\n", first, nextOf(tl.name))
			if err := os.WriteFile(filepath.Join(w.proj, ".csa", "config.toml"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			var r struct {
				result
				FallbackChain []struct {
					SessionID string `json:"session_id"`
					Spec      string `json:"spec"`
					Class     string `json:"class"`
					Message   string `json:"message"`
				} `json:"fallback_chain"`
			}
			out, code, stderr := w.csa("run", "--json", "--tier", "t", "e2e failover")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s%s", code, out, stderr, w.requests())
			}
			decode(t, out, &r)
			if !strings.Contains(r.Result, "Answered by the next model.") || r.Tool == tl.name {
				t.Fatalf("the next model did not answer: %s", out)
			}
			if len(r.FallbackChain) != 1 || r.FallbackChain[0].Class != "rate_limited" {
				t.Fatalf("chain: %+v", r.FallbackChain)
			}
			firstID := r.FallbackChain[0].SessionID
			var st struct {
				AgentRetries int `json:"agent_retries"`
			}
			ins, _, _ := w.csa("inspect", "--json", firstID)
			decode(t, ins, &st)
			if st.AgentRetries < 2 || !strings.Contains(r.FallbackChain[0].Message, "retried a rate-limited request 2 times") {
				t.Fatalf("%s's own retries were not followed: %d retries, %q", tl.name, st.AgentRetries, r.FallbackChain[0].Message)
			}
			evs, _, _ := w.csa("logs", "--events", firstID)
			if n := strings.Count(evs, `"type":"retry"`); n < 2 {
				t.Fatalf("%d retry events:\n%s", n, evs)
			}
			// csa itself never asked the busy model again.
			ps, _, _ := w.csa("ps", "--json")
			if n := strings.Count(ps, `"tool":"`+tl.name+`"`); n != 1 {
				t.Errorf("%d sessions of %s: csa retried the model the program had retried itself\n%s", n, tl.name, ps)
			}
		})
	}
}
