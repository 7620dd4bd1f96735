package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/batch"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/workflow"
)

// The README and docs/ state closed sets and the layout of the code; these
// tests hold them to the code, so the two cannot drift apart. A test finds
// its text by section title wherever it is (section), so text can move
// between the README and docs/ with its test unchanged.

const repoRoot = "../.."

func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docFiles are README.md and docs/*.md (not the generated docs/cli/).
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	return append([]string{filepath.Join(repoRoot, "README.md")}, files...)
}

// section is the text of the section titled title (its heading line and
// everything up to the next heading of its level or above), found in
// README.md or docs/*.md; headings inside code fences are not headings.
// Exactly one section may have the title: where several do, sectionIn
// names the file.
func section(t *testing.T, title string) string {
	t.Helper()
	return sectionIn(t, "", title)
}

// sectionIn is section in the file named file ("docs/sessions.md"), or in
// all of them when file is "".
func sectionIn(t *testing.T, file, title string) string {
	t.Helper()
	var found []string
	for _, f := range docFiles(t) {
		if rel, _ := filepath.Rel(repoRoot, f); file != "" && rel != file {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range headings(string(b)) {
			if h.title == title {
				found = append(found, string(b)[h.start:h.end])
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d sections titled %q in README.md and docs/*.md (file %q), want 1", len(found), title, file)
	}
	return found[0]
}

type heading struct {
	level      int
	title      string
	start, end int // the section's bytes
}

// headings are the markdown headings of text outside fenced code blocks,
// each with the span of its section.
func headings(text string) []heading {
	var hs []heading
	fence, off := "", 0
	for _, line := range strings.SplitAfter(text, "\n") {
		l := strings.TrimRight(line, "\n")
		if ticks := len(l) - len(strings.TrimLeft(l, "`")); ticks >= 3 {
			switch {
			case fence == "":
				fence = l[:ticks]
			case strings.TrimSpace(l) == fence:
				fence = ""
			}
		} else if fence == "" {
			if m := headingRE.FindStringSubmatch(l); m != nil {
				hs = append(hs, heading{level: len(m[1]), title: m[2], start: off})
			}
		}
		off += len(line)
	}
	for i := range hs {
		hs[i].end = len(text)
		for _, n := range hs[i+1:] {
			if n.level <= hs[i].level {
				hs[i].end = n.start
				break
			}
		}
	}
	return hs
}

var headingRE = regexp.MustCompile(`^(#{1,6}) (.+?)\s*$`)

// TestReadmeFailureClasses: the classes `csa run --json` documents are
// session.FailureClasses, in its order.
func TestReadmeFailureClasses(t *testing.T) {
	m := regexp.MustCompile("(?s)`failure\\.class` is one of (.*?)\\.\\s").FindStringSubmatch(section(t, "Using csa"))
	if m == nil {
		t.Fatal("docs: no sentence \"`failure.class` is one of ...\"")
	}
	var got []string
	for _, w := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(m[1], -1) {
		got = append(got, w[1])
	}
	if !slices.Equal(got, session.FailureClasses) {
		t.Errorf("docs/using.md lists the failure classes\n  %v\nsession.FailureClasses is\n  %v", got, session.FailureClasses)
	}
}

// TestReadmeLayout: every package directory is in docs/development.md's
// Development layout (an entry ending in /... covers those below it), and
// every entry there exists.
func TestReadmeLayout(t *testing.T) {
	block := section(t, "Development")
	open := strings.Index(block, "```\n")
	if open < 0 {
		t.Fatal("docs/development.md: no layout block")
	}
	block = block[open+4:]
	block = block[:strings.Index(block, "```")]
	var entries []string
	for _, line := range strings.Split(block, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] != "#" {
			entries = append(entries, f[0])
		}
	}
	for _, e := range entries {
		dir := strings.TrimSuffix(strings.TrimSuffix(e, "..."), "/")
		if st, err := os.Stat(filepath.Join(repoRoot, dir)); err != nil || !st.IsDir() {
			t.Errorf("docs/development.md layout names %s, which is not a directory", e)
		}
	}
	covered := func(pkg string) bool {
		for _, e := range entries {
			if e == pkg+"/" || strings.HasSuffix(e, "/...") && strings.HasPrefix(pkg+"/", strings.TrimSuffix(e, "...")) {
				return true
			}
		}
		return false
	}
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != repoRoot && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") {
			return nil
		}
		pkg, _ := filepath.Rel(repoRoot, filepath.Dir(path))
		if pkg != "." && !covered(filepath.ToSlash(pkg)) {
			t.Errorf("docs/development.md layout does not mention %s/", pkg)
			return filepath.SkipDir // once per package
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReadmeBatchExamples: the batch files the docs show are valid.
func TestReadmeBatchExamples(t *testing.T) {
	text := section(t, "Batches (csa batch)")
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```(toml|json)\n(.*?)```").FindAllStringSubmatch(text, -1)
	if len(blocks) != 2 {
		t.Fatalf("docs Batches: %d toml and json examples, want 2", len(blocks))
	}
	for _, b := range blocks {
		if _, err := batch.Parse("example."+b[1], dir, []byte(b[2])); err != nil {
			t.Errorf("docs Batches: the %s example: %v", b[1], err)
		}
	}
}

// TestReadmeWorkflowExample: the workflow the docs show compiles, its
// prose and code blocks included (its INCLUDE given a file with a step).
func TestReadmeWorkflowExample(t *testing.T) {
	m := regexp.MustCompile("(?s)````markdown\n(.*?)````").FindStringSubmatch(section(t, "Workflows"))
	if m == nil {
		t.Fatal("docs Workflows: no ````markdown example")
	}
	dir := t.TempDir()
	for name, s := range map[string]string{"PATTERN.md": m[1], "review.md": "## Step 5: Review\nTool: review\n--range HEAD~1\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p, err := workflow.Compile(filepath.Join(dir, "PATTERN.md"), nil)
	if err != nil {
		t.Fatalf("docs Workflows: the example: %v", err)
	}
	if p.Steps != 6 {
		t.Errorf("docs Workflows: the example: %d steps, want 6", p.Steps)
	}
}
