package fakeagent

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestScripted(t *testing.T) {
	rules := filepath.Join(t.TempDir(), "answers.txt")
	os.WriteFile(rules, []byte(`# comment
codex | REVIEW => echo 'codex says {"verdict": "pass"}'
* | REVIEW => echo one; echo two
not a rule
* | => echo anything
`), 0o600)
	t.Setenv(answersEnv, rules)
	tests := []struct {
		tool, prompt string
		want         []string
	}{
		{"codex", "CSA REVIEW REQUEST ...", []string{`echo 'codex says {"verdict": "pass"}'`}},
		{"gemini-cli", "CSA REVIEW REQUEST ...", []string{"echo one", "echo two"}},
		{"gemini-cli", "hello there", []string{"echo anything"}},
		{"codex", "echo a directive script", []string{"echo a directive script"}},
	}
	for _, tc := range tests {
		if got := scripted(tc.tool, tc.prompt, split(tc.prompt)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %q: %q, want %q", tc.tool, tc.prompt, got, tc.want)
		}
	}
	t.Setenv(answersEnv, "")
	if got := scripted("codex", "REVIEW", split("REVIEW")); !reflect.DeepEqual(got, []string{"REVIEW"}) {
		t.Errorf("without rules: %q", got)
	}
}
