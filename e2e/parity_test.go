package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parityScript is one task for any program that has Claude Code's tools:
// run the tests, see them fail, read the code, fix it, rerun, report. The
// fix is only scripted once the failure reached the model ("saw-failure"
// needs it in the request), and paths are absolute ({cwd}), as Claude
// Code's Read and Edit require.
const parityScript = `
[[rule]]
name = "saw-failure"
contains = "e2e parity: fix add"
body = "FAIL: add 2 3 = -1"
  [[rule.step]]
  text = "unused: turn 0 never carries the failure"
  [[rule.step]]
  call = { name = "Read", args = { file_path = "{cwd}/calc.sh" } }
  [[rule.step]]
  call = { name = "Edit", args = { file_path = "{cwd}/calc.sh", old_string = "$1 - $2", new_string = "$1 + $2" } }
  [[rule.step]]
  shell = "sh test.sh"
  [[rule.step]]
  text = "Fixed add: the tests pass."

[[rule]]
name = "start"
contains = "e2e parity: fix add"
  [[rule.step]]
  shell = "sh test.sh"
  [[rule.step]]
  text = "the failing output never reached the model"
`

var parityFiles = map[string]string{
	"calc.sh": "add() { echo $(($1 - $2)); }\n",
	"test.sh": ". ./calc.sh\ngot=$(add 2 3)\nif [ \"$got\" = 5 ]; then echo PASS; else echo \"FAIL: add 2 3 = $got\"; exit 1; fi\n",
}

// TestParityWithClaudeCode gives real Claude Code and csa-agent, each under
// csa, the same scripted task; both must end with the same files.
func TestParityWithClaudeCode(t *testing.T) {
	results := map[string]map[string]string{}
	for _, tc := range []struct{ tool, model string }{{"claude-code", ""}, {"csa-agent", "anthropic/claude-parity"}} {
		w := newWorld(t, parityScript)
		for name, content := range parityFiles {
			if err := os.WriteFile(filepath.Join(w.proj, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		args := []string{"run", "--json", "--tool", tc.tool}
		if tc.model != "" {
			args = append(args, "--model", tc.model)
		}
		r := w.run(0, append(args, "e2e parity: fix add so that the tests pass")...)
		if r.Status != "completed" || !strings.Contains(r.Result, "Fixed add: the tests pass.") {
			t.Fatalf("%s: %+v%s", tc.tool, r, w.requests())
		}
		files := map[string]string{}
		for name := range parityFiles {
			b, err := os.ReadFile(filepath.Join(w.proj, name))
			if err != nil {
				t.Fatal(err)
			}
			files[name] = string(b)
		}
		results[tc.tool] = files
	}
	want := "add() { echo $(($1 + $2)); }\n"
	for tool, files := range results {
		if files["calc.sh"] != want {
			t.Errorf("%s left calc.sh as %q, want %q", tool, files["calc.sh"], want)
		}
	}
	if a, b := results["claude-code"], results["csa-agent"]; a["calc.sh"] != b["calc.sh"] || a["test.sh"] != b["test.sh"] {
		t.Errorf("the programs' files differ:\nclaude-code %q\ncsa-agent   %q", a, b)
	}
}
