package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// script answers every case below, for every program: rules match the
// user's text, so tools and nested runs share one server.
const script = `
[[rule]]
name = "unknown-model"
model = "no-such-model"
contains = "e2e"
  [[rule.step]]
  error = "status"
  status = 404
  message = "The model no-such-model does not exist."

[[rule]]
name = "plain"
contains = "e2e plain prompt"
  [[rule.step]]
  text = "Hello from the scripted model."

[[rule]]
name = "write"
contains = "e2e create the file"
  [[rule.step]]
  write_file = { path = "created-by-agent.txt", content = "made by the agent\n" }
  [[rule.step]]
  text = "Created the file."

[[rule]]
name = "remember"
contains = "e2e remember the word"
  [[rule.step]]
  text = "Noted: the word is pineapple."

[[rule]]
name = "recall"
contains = "e2e what was the word"
body = "Noted: the word is pineapple."
  [[rule.step]]
  text = "The word was pineapple."

[[rule]]
name = "ratelimit"
contains = "e2e rate limited"
  [[rule.step]]
  error = "rate_limit"
  message = "Scripted rate limit."
  retry_after_ms = 20

[[rule]]
name = "nest"
contains = "e2e ask a reviewer"
  [[rule.step]]
  shell = "csa run --tool auto 'e2e review this change' > review.txt 2>&1"
  [[rule.step]]
  text = "The reviewer answered."

[[rule]]
name = "review"
contains = "e2e review this change"
  [[rule.step]]
  text = "Review: looks good."
`

// TestRealAgents runs each real program under csa: a plain prompt, a tool
// call that writes a file (yolo), a resumed session, a 429, and a nested
// csa run through the agent's shell tool.
func TestRealAgents(t *testing.T) {
	requireAll(t)
	for _, tl := range tools {
		t.Run(tl.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, script)

			t.Run("plain", func(t *testing.T) {
				r := w.run(0, "run", "--json", "--tool", tl.name, "e2e plain prompt")
				if r.Status != "completed" || !strings.Contains(r.Result, "Hello from the scripted model.") {
					t.Fatalf("got %+v", r)
				}
				if r.ProviderSessionID == "" || r.Usage == nil || r.Usage.InputTokens == 0 || r.Usage.OutputTokens == 0 {
					t.Fatalf("provider session or usage missing: %+v", r)
				}
			})

			t.Run("write_file", func(t *testing.T) {
				r := w.run(0, "run", "--json", "--tool", tl.name, "e2e create the file")
				b, err := os.ReadFile(filepath.Join(w.proj, "created-by-agent.txt"))
				if err != nil || string(b) != "made by the agent\n" {
					t.Fatalf("file not written (%v, %q); run: %+v\n%s", err, b, r, w.requests())
				}
				if !strings.Contains(r.Result, "Created the file.") {
					t.Fatalf("result %q", r.Result)
				}
			})

			t.Run("resume", func(t *testing.T) {
				first := w.run(0, "run", "--json", "--tool", tl.name, "e2e remember the word")
				second := w.run(0, "run", "--json", "--session", first.SessionID, "e2e what was the word")
				if second.SessionID != first.SessionID || second.ProviderSessionID != first.ProviderSessionID {
					t.Fatalf("not the same session: %+v then %+v", first, second)
				}
				if !strings.Contains(second.Result, "The word was pineapple.") {
					t.Fatalf("second turn: %+v", second)
				}
				var st struct {
					Turns int `json:"turns"`
				}
				out, _, _ := w.csa("inspect", "--json", first.SessionID)
				json.Unmarshal([]byte(out), &st)
				if st.Turns != 2 {
					t.Fatalf("turns = %d, want 2", st.Turns)
				}
				// The recall rule answers only a request that carries the
				// first turn's answer: the program really resumed.
				if !w.matched("recall") {
					t.Fatalf("the resumed request did not carry the first turn:%s", w.requests())
				}
			})

			t.Run("rate_limited", func(t *testing.T) {
				r := w.run(1, "run", "--json", "--tool", tl.name, "e2e rate limited")
				if r.Status != "failed" || r.Failure == nil || r.Failure.Class != "rate_limited" {
					t.Fatalf("want failed/rate_limited, got %+v (failure %+v)", r, r.Failure)
				}
			})

			t.Run("unknown_model", func(t *testing.T) {
				model := "no-such-model"
				switch tl.name { // provider/model
				case "opencode":
					model = "csa/no-such-model"
				case "csa-agent":
					model = "anthropic/no-such-model"
				}
				// The provider's answer, as the program reports it; opencode
				// rejects a model missing from its configuration itself.
				want := map[string]string{
					"claude-code": "issue with the selected model (no-such-model)",
					"codex":       "The model no-such-model does not exist.",
					"gemini-cli":  "The model no-such-model does not exist.",
					"opencode":    "Unexpected server error",
					"csa-agent":   "The model no-such-model does not exist.",
				}[tl.name]
				r := w.run(1, "run", "--json", "--tool", tl.name, "--model", model, "e2e plain prompt")
				if r.Status != "failed" || r.Failure == nil || !strings.Contains(r.Failure.Message, want) {
					t.Fatalf("the program's own error about the model should surface: %+v (failure %+v)", r, r.Failure)
				}
			})

			t.Run("nested", func(t *testing.T) {
				parent := w.run(0, "run", "--json", "--tool", tl.name, "e2e ask a reviewer")
				out, _, _ := w.csa("ps", "--json")
				var rows []struct {
					ID, Tool, State, ParentID string
					Depth                     int
				}
				json.Unmarshal([]byte(strings.ReplaceAll(out, `"parent_id"`, `"parentid"`)), &rows)
				var child *struct {
					ID, Tool, State, ParentID string
					Depth                     int
				}
				for i := range rows {
					if rows[i].ParentID == parent.SessionID {
						child = &rows[i]
					}
				}
				if child == nil {
					review, _ := os.ReadFile(filepath.Join(w.proj, "review.txt"))
					t.Fatalf("no child session of %s in %s\nreview.txt: %s%s", parent.SessionID, out, review, w.requests())
				}
				if child.Depth != 1 || child.State != "completed" || family(child.Tool) == family(tl.name) {
					t.Fatalf("child %+v of %s", child, tl.name)
				}
			})
		})
	}
}

// family mirrors docs/agents.md (--tool auto) for the tools configured here
// (opencode runs an OpenAI-compatible model of unknown family, csa-agent
// devenv.CSAAgentModel, an Anthropic one).
func family(tool string) string {
	return map[string]string{"claude-code": "anthropic", "codex": "openai", "gemini-cli": "google", "csa-agent": "anthropic"}[tool]
}

// matched reports whether the model server answered a request by rule.
func (w *world) matched(rule string) bool {
	for _, r := range w.settled() {
		if r.Rule == rule {
			return true
		}
	}
	return false
}
