package prompt

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// loaded lists the memory files read, as paths relative to base (or
// absolute when outside it).
func loaded(home, cwd string, external bool, base string) []string {
	var out []string
	for _, f := range memoryFiles(home, cwd, external) {
		if rel, err := filepath.Rel(base, f.path); err == nil && !strings.HasPrefix(rel, "..") {
			out = append(out, rel)
		} else {
			out = append(out, f.path)
		}
	}
	return out
}

func textOf(home, cwd, path string) string {
	for _, f := range memoryFiles(home, cwd, false) {
		if f.path == path {
			return f.text
		}
	}
	return "(not read)"
}

func want(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("memory files:\n got %q\nwant %q", got, want)
	}
}

func TestImportsRelativeHomeAndAbsoluteFollowTheirFile(t *testing.T) {
	home, proj, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	abs := filepath.Join(proj, "abs.md")
	write(t, filepath.Join(proj, "CLAUDE.md"), "# Project\nSee @docs/a.md and @./b.md then @"+abs+" and @~/from-home.md\n")
	write(t, filepath.Join(proj, "docs", "a.md"), "A imports @../c.md\n")
	write(t, filepath.Join(proj, "b.md"), "B")
	write(t, filepath.Join(proj, "c.md"), "C")
	write(t, abs, "ABS")
	write(t, filepath.Join(home, "from-home.md"), "HOME")
	write(t, filepath.Join(home, ".claude", "CLAUDE.md"), "user, importing @"+filepath.Join(elsewhere, "x.md"))
	write(t, filepath.Join(elsewhere, "x.md"), "X")

	// The user's file may import anything; the project's imports outside
	// the working directory (~/from-home.md) wait for approval.
	want(t, loaded(home, proj, false, proj), filepath.Join(home, ".claude", "CLAUDE.md"), filepath.Join(elsewhere, "x.md"),
		"CLAUDE.md", "docs/a.md", "c.md", "b.md", "abs.md")
	want(t, loaded(home, proj, true, proj), filepath.Join(home, ".claude", "CLAUDE.md"), filepath.Join(elsewhere, "x.md"),
		"CLAUDE.md", "docs/a.md", "c.md", "b.md", "abs.md", filepath.Join(home, "from-home.md"))

	// The importing file keeps its "@" lines; the imported text follows it.
	p := Build(Env{Cwd: proj, Home: home, Now: time.Now()})
	order := []string{"See @docs/a.md", "A imports @../c.md", "\nC\n", "\nB\n", "\nABS\n"}
	last := -1
	for _, s := range order {
		i := strings.Index(p, s)
		if i <= last {
			t.Fatalf("%q missing or out of order in:\n%s", s, p)
		}
		last = i
	}
}

func TestImportDepthStopsWhereClaudeCodeStops(t *testing.T) {
	proj := t.TempDir()
	write(t, filepath.Join(proj, "CLAUDE.md"), "top @d1.md")
	for i := 1; i <= 6; i++ {
		write(t, filepath.Join(proj, fmt.Sprintf("d%d.md", i)), fmt.Sprintf("hop %d @d%d.md", i, i+1))
	}
	// The top file is at depth 0; depth 5 is not read.
	want(t, loaded("", proj, false, proj), "CLAUDE.md", "d1.md", "d2.md", "d3.md", "d4.md")
}

func TestImportCycleReadsEachFileOnce(t *testing.T) {
	proj := t.TempDir()
	write(t, filepath.Join(proj, "CLAUDE.md"), "@a.md")
	write(t, filepath.Join(proj, "a.md"), "a @b.md")
	write(t, filepath.Join(proj, "b.md"), "b @a.md @CLAUDE.md")
	write(t, filepath.Join(proj, "AGENTS.md"), "agents @a.md")
	want(t, loaded("", proj, false, proj), "AGENTS.md", "a.md", "b.md", "CLAUDE.md")
}

func TestImportsInCodeAndCommentsAreNotRead(t *testing.T) {
	proj := t.TempDir()
	for _, n := range []string{"span", "fence", "indented", "comment", "html", "mail", "yes", "item", "emph"} {
		write(t, filepath.Join(proj, n+".md"), n)
	}
	write(t, filepath.Join(proj, "CLAUDE.md"), strings.Join([]string{
		"Run `cat @span.md` here.",
		"",
		"```",
		"@fence.md",
		"```",
		"",
		"    @indented.md",
		"",
		"<!-- @comment.md -->",
		"",
		"<div>",
		"@html.md",
		"</div>",
		"",
		"Write to me@mail.md, and read @yes.md",
		"",
		"- a list item: @item.md",
		"- *@emph.md*",
		"",
	}, "\n"))
	want(t, loaded("", proj, false, proj), "CLAUDE.md", "yes.md", "item.md", "emph.md")
	if got := textOf("", proj, filepath.Join(proj, "CLAUDE.md")); strings.Contains(got, "<!--") || !strings.Contains(got, "`cat @span.md`") {
		t.Fatalf("comment not dropped or code changed:\n%s", got)
	}
}

func TestLocalFileRulesAndTheWalkFromTheTop(t *testing.T) {
	top := t.TempDir()
	proj := filepath.Join(top, "repo")
	cwd := filepath.Join(proj, "sub")
	write(t, filepath.Join(top, "CLAUDE.md"), "above the repo")
	write(t, filepath.Join(proj, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(proj, "CLAUDE.local.md"), "mine")
	write(t, filepath.Join(proj, "CLAUDE.md"), "shared")
	write(t, filepath.Join(proj, ".claude", "CLAUDE.md"), "dot-claude")
	write(t, filepath.Join(proj, ".claude", "rules", "b.md"), "rule b")
	write(t, filepath.Join(proj, ".claude", "rules", "a.md"), "---\ndescription: x\n---\nrule a")
	write(t, filepath.Join(proj, ".claude", "rules", "go", "style.md"), "rule go")
	write(t, filepath.Join(proj, ".claude", "rules", "scoped.md"), "---\npaths:\n  - \"src/**/*.ts\"\n---\nonly for ts")
	write(t, filepath.Join(proj, ".claude", "rules", "everywhere.md"), "---\npaths: \"**\"\n---\nall files")
	write(t, filepath.Join(proj, ".claude", "rules", "notes.txt"), "not a rule")
	write(t, filepath.Join(cwd, "CLAUDE.local.md"), "mine, deeper")
	home := t.TempDir()
	write(t, filepath.Join(home, ".claude", "rules", "u.md"), "user rule")

	// Rules come in the directory's order, as Claude Code reads them.
	var rules []string
	for _, e := range readDirOrder(t, filepath.Join(proj, ".claude", "rules")) {
		switch e {
		case "a.md", "b.md", "everywhere.md":
			rules = append(rules, "repo/.claude/rules/"+e)
		case "go":
			rules = append(rules, "repo/.claude/rules/go/style.md")
		}
	}
	want(t, loaded(home, cwd, false, top), append(append([]string{filepath.Join(home, ".claude", "rules", "u.md"), "CLAUDE.md",
		"repo/CLAUDE.md", "repo/.claude/CLAUDE.md"}, rules...), "repo/CLAUDE.local.md", "repo/sub/CLAUDE.local.md")...)
	if got := textOf(home, cwd, filepath.Join(proj, ".claude", "rules", "a.md")); got != "rule a" {
		t.Fatalf("front matter kept: %q", got)
	}
}

func TestMissingAndNonTextImportsAreSkippedAndBytesKept(t *testing.T) {
	proj := t.TempDir()
	raw := "caf\xe9 \xff\xfe bytes"
	write(t, filepath.Join(proj, "CLAUDE.md"), "@gone.md @logo.png @raw.md @Makefile @big.md")
	write(t, filepath.Join(proj, "logo.png"), "\x89PNG\r\n\x1a\n")
	write(t, filepath.Join(proj, "raw.md"), raw)
	write(t, filepath.Join(proj, "Makefile"), "all:")
	if err := os.WriteFile(filepath.Join(proj, "big.md"), make([]byte, maxMemoryBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	want(t, loaded("", proj, false, proj), "CLAUDE.md", "raw.md", "Makefile")
	if got := textOf("", proj, filepath.Join(proj, "raw.md")); got != raw {
		t.Fatalf("bytes changed: %q", got)
	}
}

func TestExternalImportsApprovalIsReadFromClaudeJSON(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude.json")
	write(t, path, `{"projects":{"/p/yes":{"hasClaudeMdExternalIncludesApproved":true},"/p/no":{"hasTrustDialogAccepted":true}}}`)
	if !ExternalImportsApproved(path, "/p/yes") || ExternalImportsApproved(path, "/p/no") ||
		ExternalImportsApproved(path, "/p/other") || ExternalImportsApproved(filepath.Join(dir, "none"), "/p/yes") {
		t.Fatal("approval misread")
	}
}

// readDirOrder lists dir's names in the file system's order (ls -U).
func readDirOrder(t *testing.T, dir string) []string {
	t.Helper()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		t.Fatal(err)
	}
	return names
}
