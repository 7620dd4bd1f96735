package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/csa-dev/csa/internal/config"
)

// Statements of docs/ that were once false, each held to the code.

// TestDocsSessionFiles: a session directory holds the files the Sessions
// table says, in the cases it names, and no others: a quiet foreground
// run with a short prompt; a detached one with a long prompt whose program
// writes to its stderr; a detached one with a long prompt stopped by csa
// kill.
func TestDocsSessionFiles(t *testing.T) {
	when := map[string][]string{} // case -> files
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\| ([^|]+) \\|").FindAllStringSubmatch(sectionIn(t, "docs/sessions.md", "Sessions"), -1) {
		when[strings.TrimSpace(m[2])] = append(when[strings.TrimSpace(m[2])], m[1])
	}
	const (
		always    = "always"
		started   = "a headless run whose program was started"
		stderr    = "a headless run whose program wrote to its standard error"
		prompt    = "a headless run whose prompt is over 200 bytes or goes on standard input"
		spec      = "a detached or interactive run"
		detached  = "a detached run"
		killed    = "a run `csa kill` was asked to stop"
		worktree  = "a worktree run (`csa run -w`)"
		knownRows = 8
	)
	if len(when) != knownRows {
		t.Fatalf("the Sessions table names %d cases, this test knows %d: %v", len(when), knownRows, when)
	}
	files := func(cases ...string) []string {
		var fs []string
		for _, c := range cases {
			if len(when[c]) == 0 {
				t.Fatalf("the Sessions table has no file for %q: %v", c, when)
			}
			fs = append(fs, when[c]...)
		}
		slices.Sort(fs)
		return fs
	}
	e := newEnv(t)
	dirOf := func(id string) []string {
		dirs, _ := filepath.Glob(filepath.Join(e.dir, "state", "projects", "*", "sessions", id))
		if len(dirs) != 1 {
			t.Fatalf("no directory for session %q", id)
		}
		ents, err := os.ReadDir(dirs[0])
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, d := range ents {
			names = append(names, d.Name())
		}
		return names
	}
	check := func(what string, got, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s: the session directory holds\n  %v\nthe Sessions table says\n  %v", what, got, want)
		}
	}

	var run struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(e.csa(0, "run", "--json", "--tool", "codex", "echo hi")), &run); err != nil {
		t.Fatal(err)
	}
	check("a quiet foreground run, short prompt", dirOf(run.SessionID), files(always, started))

	id := strings.TrimSpace(e.csa(0, "run", "-d", "--tool", "codex", "stderr oops; echo "+strings.Repeat("x", 250)))
	e.csa(0, "wait", id)
	check("a detached run, long prompt, stderr", dirOf(id), files(always, started, stderr, prompt, spec, detached))

	id = strings.TrimSpace(e.csa(0, "run", "-d", "--tool", "codex", "hang; echo "+strings.Repeat("y", 250)))
	e.waitRunning()
	e.csa(0, "kill", id)
	e.csa(1, "wait", id) // killed: ended, not completed
	check("a detached run killed, long prompt", dirOf(id), files(always, started, prompt, spec, detached, killed))

	proj := filepath.Join(e.dir, "proj")
	gitIn(t, proj, "init", "-q")
	gitIn(t, proj, "commit", "-q", "--allow-empty", "-m", "base")
	if err := json.Unmarshal([]byte(e.csa(0, "run", "--json", "-w", "--tool", "codex", "echo hi")), &run); err != nil {
		t.Fatal(err)
	}
	check("a worktree run, short prompt", dirOf(run.SessionID), files(always, started, worktree))
}

// TestDocsMCPEnabledDefault: the MCP page gives mcp.enabled's default as
// the configuration has it.
func TestDocsMCPEnabledDefault(t *testing.T) {
	m := regexp.MustCompile("`mcp\\.enabled` is `(true|false)` by default").FindStringSubmatch(section(t, "MCP: one hub for every agent, and csa as an MCP server"))
	if m == nil {
		t.Fatal("docs/mcp.md: no sentence \"`mcp.enabled` is `...` by default\"")
	}
	if want := strconv.FormatBool(config.Default().MCP.Enabled); m[1] != want {
		t.Errorf("docs/mcp.md: mcp.enabled is %s by default; the configuration's default is %v", m[1], want)
	}
}

// TestDocsSocketDir: the socket directory is described where the keeper
// is, naming each place internal/rundir picks (rundir's tests hold it to
// that), and nowhere with the old, wrong order.
func TestDocsSocketDir(t *testing.T) {
	s := section(t, "When csa itself dies")
	if !regexp.MustCompile("(?s)private socket directory \\(`\\$XDG_RUNTIME_DIR/csa` when.*?else `csa-UID` in the temporary directory, `\\$TMPDIR` or\\s+`/tmp`, or `/tmp/csa-UID` when that path would be too long").MatchString(s) {
		t.Errorf("docs/sessions.md: the socket directory is not described as rundir.Dir picks it:\n%s", s)
	}
	for _, f := range docFiles(t) {
		b, _ := os.ReadFile(f)
		if regexp.MustCompile("`\\$XDG_RUNTIME_DIR/csa`, else\\s+`/tmp/csa-UID`").Match(b) {
			t.Errorf("%s: the socket directory is $XDG_RUNTIME_DIR/csa, else $TMPDIR/csa-UID (not /tmp/csa-UID)", f)
		}
	}
}

// TestReadmeFrontDoor: the README stays a front door (issue 24: at most
// 250 lines) and its index links every file of docs/ (docs/cli through
// its first page).
func TestReadmeFrontDoor(t *testing.T) {
	text := readme(t)
	if n := strings.Count(text, "\n"); n > 250 {
		t.Errorf("README.md has %d lines, at most 250: move the text to docs/", n)
	}
	index := section(t, "Where to read on")
	ents, err := os.ReadDir(filepath.Join(repoRoot, "docs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		target := "docs/" + e.Name()
		if e.IsDir() {
			target += "/csa.md"
		}
		if !strings.Contains(index, "]("+target+")") {
			t.Errorf("README's \"Where to read on\" does not link %s", target)
		}
	}
}

// TestDocsLinks: every relative link of README.md and docs/*.md names a
// file that exists and, after #, a heading of it.
func TestDocsLinks(t *testing.T) {
	fence := regexp.MustCompile("(?ms)^(```+).*?^```+[ \t]*$")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, f := range docFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(fence.ReplaceAllString(string(b), ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			file := f
			if path != "" {
				file = filepath.Join(filepath.Dir(f), path)
			}
			body, err := os.ReadFile(file)
			if err != nil {
				t.Errorf("%s: link %s: %v", f, target, err)
				continue
			}
			if anchor != "" && !slices.ContainsFunc(headings(string(body)), func(h heading) bool { return slug(h.title) == anchor }) {
				t.Errorf("%s: link %s: no heading %q in %s", f, target, anchor, file)
			}
		}
	}
}

// slug is a heading's anchor as GitHub makes it.
func slug(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
