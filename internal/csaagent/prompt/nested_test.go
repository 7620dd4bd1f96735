package prompt

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestNestedMemoryGivenOnceWhenAFileIsRead(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	cwd := filepath.Join(root, "app")
	write(t, filepath.Join(home, ".claude/rules/user-ts.md"), "---\npaths: \"**/*.ts\"\n---\nuser ts rule")
	write(t, filepath.Join(root, ".claude/rules/api.md"), "---\npaths:\n  - \"app/api/**\"\n---\nroot api rule @other.md")
	write(t, filepath.Join(root, ".claude/rules/other.md"), "always")
	write(t, filepath.Join(cwd, ".claude/rules/nested/go.md"), "---\npaths: [\"*.go\"]\n---\ncwd go rule")
	write(t, filepath.Join(cwd, "lib/.claude/rules/lib.md"), "---\npaths: \"x/**\"\n---\nlib rule")
	write(t, filepath.Join(cwd, ".claude/rules/everywhere.md"), "---\npaths: \"**\"\n---\nunscoped")
	r := NewNestedMemory(home, cwd, false)

	got := r.For(filepath.Join(cwd, "api", "h.go"))
	want := "<system-reminder>\nContents of " + filepath.Join(root, ".claude/rules/api.md") + ":\n\nroot api rule @other.md\n\n" +
		"Contents of " + filepath.Join(cwd, ".claude/rules/nested/go.md") + ":\n\ncwd go rule\n</system-reminder>"
	if got != want {
		t.Fatalf("reading api/h.go gave\n%s\nwant\n%s", got, want)
	}
	if again := r.For(filepath.Join(cwd, "api", "other.go")); again != "" {
		t.Fatalf("a rule was given twice:\n%s", again)
	}
	got = r.For(filepath.Join(cwd, "lib", "x", "y", "z.ts"))
	if !strings.Contains(got, "user ts rule") || !strings.Contains(got, "lib rule") || strings.Index(got, "user ts") > strings.Index(got, "lib rule") {
		t.Fatalf("reading lib/x/y/z.ts gave\n%s", got)
	}
	if got := r.For(filepath.Join(root, "outside.ts")); got != "" {
		t.Fatalf("a file outside the working directory matched the user's rule:\n%s", got)
	}
	if p := Build(Env{Cwd: cwd, Home: home}); strings.Contains(p, "api rule") || !strings.Contains(p, "unscoped") {
		t.Fatalf("the system prompt should hold the rule for every path and no scoped one:\n%s", p)
	}
}
