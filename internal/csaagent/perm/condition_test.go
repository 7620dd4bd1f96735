package perm

import (
	"path/filepath"
	"testing"
)

func TestMatchesCall(t *testing.T) {
	cwd := t.TempDir()
	cases := []struct {
		rule, name, subject string
		want                bool
	}{
		{"Bash", "Bash", "anything", true},
		{"Bash(git commit:*)", "Bash", "git commit -m x", true},
		{"Bash(git commit:*)", "Bash", "git add . && git commit -m x", true},
		{"Bash(git commit:*)", "Bash", "echo $(git commit -m x)", true},
		{"Bash(git commit:*)", "Bash", "git commitx", false},
		{"Bash(git commit:*)", "Bash", "git status", false},
		{"Bash(npm test)", "Bash", "npm test", true},
		{"Bash(npm test)", "Bash", "npm test --watch", false},
		{"Edit(*.go)", "Edit", filepath.Join(cwd, "a", "b.go"), true},
		{"Edit(*.go)", "Edit", "rel.go", true},
		{"Edit(*.go)", "Edit", filepath.Join(cwd, "b.txt"), false},
		// A hook's condition names one tool: Edit is not Write here.
		{"Edit(*.go)", "Write", filepath.Join(cwd, "b.go"), false},
		{"Write(src/**)", "Write", filepath.Join(cwd, "src", "x", "y.txt"), true},
		{"Write(src/**)", "Write", filepath.Join(cwd, "doc", "y.txt"), false},
		{"WebFetch(domain:example.com)", "WebFetch", "https://api.example.com/x", true},
		{"WebFetch(domain:example.com)", "WebFetch", "https://example.org/", false},
		{"Task(reviewer)", "Task", "reviewer", true},
		{"Read", "Bash", "cat x", false},
	}
	for _, c := range cases {
		r, err := ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.MatchesCall(c.name, c.subject, cwd); got != c.want {
			t.Errorf("%s on %s(%s) = %v, want %v", c.rule, c.name, c.subject, got, c.want)
		}
	}
}
