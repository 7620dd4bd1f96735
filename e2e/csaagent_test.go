package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/testkit/modelserver"
)

// TestRealCSAAgent runs csa's own agent program, built beside the csa under
// test, as csa's fifth tool against the model server: a model named
// provider/model on the command line and in a tier (with its effort),
// --tool auto choosing it by the family of its configured model, and its
// line-mode REPL under csa run -i reaching each turn's end through its
// hooks. TestRealAgents runs it through the same cases as the others.
func TestRealCSAAgent(t *testing.T) {
	w := newWorld(t, script+interactiveScript) // interactiveScript ends with a catch-all

	t.Run("model", func(t *testing.T) {
		r := w.run(0, "run", "--json", "--tool", "csa-agent", "--model", "anthropic/x", "e2e plain prompt")
		if r.Tool != "csa-agent" || r.Status != "completed" || !strings.Contains(r.Result, "Hello from the scripted model.") {
			t.Fatalf("got %+v", r)
		}
		if r.ProviderSessionID == "" || r.Usage == nil || r.Usage.InputTokens == 0 || r.Usage.OutputTokens == 0 {
			t.Fatalf("provider session or usage missing: %+v", r)
		}
		w.asked(t, modelserver.APIAnthropic, "x")
	})

	t.Run("tier", func(t *testing.T) {
		w.projectConfig(t, "[tiers.t]\nmodels = [\"csa-agent/anthropic/tiered/high\"]\n")
		r := w.run(0, "run", "--json", "--tier", "t", "e2e plain prompt")
		if r.Tool != "csa-agent" || !strings.Contains(r.Result, "Hello from the scripted model.") {
			t.Fatalf("got %+v", r)
		}
		w.asked(t, modelserver.APIAnthropic, "tiered")
	})

	t.Run("auto", func(t *testing.T) {
		// From claude-code (anthropic), with the other tools disabled,
		// csa-agent on an OpenAI model is the one of another family.
		w.projectConfig(t, "[tools.codex]\nenabled = false\n[tools.gemini-cli]\nenabled = false\n[tools.opencode]\nenabled = false\n"+
			"[tools.csa-agent]\nmodel = \"openai/gpt-auto\"\n")
		env := w.env
		w.env = append(append([]string(nil), env...), "CSA_TOOL=claude-code")
		r := w.run(0, "run", "--json", "--tool", "auto", "e2e plain prompt")
		w.env = env
		if r.Tool != "csa-agent" || !strings.Contains(r.Result, "Hello from the scripted model.") {
			t.Fatalf("got %+v", r)
		}
		w.asked(t, "", "gpt-auto")
		w.projectConfig(t, "")
	})

	t.Run("interactive", func(t *testing.T) {
		sp, lg := w.twoTurns(t, "csa-agent", "e2e interactive second")
		id := sp.SessionID
		// Its conversation is kept in the session, as the hooks report it.
		if !strings.HasPrefix(lg.Path, filepath.Join(w.sessionDir(id), "csa-agent")+"/") {
			t.Fatalf("transcript %s, want it under the session's csa-agent directory", lg.Path)
		}
		if _, code, stderr := w.csa("kill", id); code != 0 {
			t.Fatalf("kill: exit %d: %s", code, stderr)
		}
		w.noneLeft(id, sp.PanePID, sp.TmuxSocket)
	})
}

// projectConfig replaces the project's csa config ("" for none).
func (w *world) projectConfig(t *testing.T, cfg string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(w.proj, ".csa", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

// asked checks that the last model request went to api ("" for any) for
// model.
func (w *world) asked(t *testing.T, api, model string) {
	t.Helper()
	reqs := w.settled()
	for i := len(reqs) - 1; i >= 0; i-- {
		r := reqs[i]
		if r.Model == "" {
			continue // a side request
		}
		if r.Model != model || (api != "" && r.API != api) {
			t.Fatalf("last model request %+v, want api %q model %q", r, api, model)
		}
		return
	}
	t.Fatalf("no model request%s", w.requests())
}
