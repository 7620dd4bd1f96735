package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

func names(ts []tool.Tool) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name())
	}
	return strings.Join(out, " ")
}

func TestRegistry(t *testing.T) {
	all := All()
	const want = "Task Bash Glob Grep LS ExitPlanMode Read Edit MultiEdit Write WebFetch TodoWrite BashOutput KillShell EnterPlanMode Skill"
	if got := names(all); got != want {
		t.Fatalf("All() = %s", got)
	}
	for _, tl := range all {
		var s map[string]any
		if err := json.Unmarshal(tl.Schema(), &s); err != nil || s["type"] != "object" {
			t.Errorf("%s: schema %s: %v", tl.Name(), tl.Schema(), err)
		}
		if len(tl.Description()) < 100 {
			t.Errorf("%s: description too thin", tl.Name())
		}
		if got, ok := ByName(tl.Name()); !ok || got.Name() != tl.Name() {
			t.Errorf("ByName(%s)", tl.Name())
		}
	}
	if _, ok := ByName("Nope"); ok {
		t.Error("ByName(Nope) found")
	}
	if got := names(Filter(all, []string{"Read", "Grep", "Bash(git:*)", "Unknown"})); got != "Bash Grep Read" {
		t.Errorf("Filter = %s", got)
	}
	if got := Filter(all, nil); len(got) != len(all) {
		t.Errorf("Filter(nil) kept %d", len(got))
	}
	if got := Filter(all, []string{"*"}); len(got) != len(all) {
		t.Errorf("Filter(*) kept %d", len(got))
	}
	withTypes := With(all, NewTask([]tool.SubagentType{{Name: "X", Description: "y"}}))
	if names(withTypes) != want || !strings.Contains(withTypes[0].Description(), "- X: y") {
		t.Error("With did not replace Task in place")
	}
}

// TestClassification pins which calls may run alongside others and which
// are allowed in plan mode.
func TestClassification(t *testing.T) {
	safe := map[string]bool{"Read": true, "Glob": true, "Grep": true, "LS": true, "BashOutput": true, "WebFetch": true, "Task": true, "Skill": true}
	readOnly := map[string]bool{"Read": true, "Glob": true, "Grep": true, "LS": true, "BashOutput": true, "WebFetch": true,
		"Task": true, "TodoWrite": true, "ExitPlanMode": true, "EnterPlanMode": true, "Skill": true}
	in := json.RawMessage(`{"command":"make install"}`)
	for _, tl := range All() {
		if got := tl.ConcurrencySafe(in); got != safe[tl.Name()] {
			t.Errorf("%s: ConcurrencySafe = %v", tl.Name(), got)
		}
		if got := tl.ReadOnly(in); got != readOnly[tl.Name()] {
			t.Errorf("%s: ReadOnly = %v", tl.Name(), got)
		}
	}
}
