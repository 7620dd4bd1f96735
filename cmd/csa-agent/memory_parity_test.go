package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// memoryScript answers the parity prompt with plain text.
const memoryScript = `
[[rule]]
name = "memory"
contains = "memory parity"
  [[rule.step]]
  text = "noted"
`

// memoryFixture is a project of CLAUDE.md files: every kind of import,
// the local file, rules (one scoped to paths) and a directory above the
// repository. Paths are relative to the test's directory; HOME is home.
var memoryFixture = map[string]string{
	"home/.claude/CLAUDE.md":   "user memory @~/notes/user-extra.md",
	"home/notes/user-extra.md": "user extra",
	"home/.claude/rules/u.md":  "user rule",
	"CLAUDE.md":                "above the repository",
	"repo/.git/HEAD":           "ref: refs/heads/main\n",
	// docs/ is outside the working directory (repo/sub): not imported
	// without the user's approval, nor is ~/notes/project-extra.md.
	"repo/CLAUDE.md": "# Repo\nSee @docs/style.md and @sub/inner.md and @~/notes/project-extra.md\n" +
		"Code: `@sub/never.md`\n\n```\n@sub/never.md\n```\n<!-- hidden @sub/never.md -->\n\nend of repo memory",
	"repo/docs/style.md":             "style",
	"home/notes/project-extra.md":    "project extra",
	"repo/sub/never.md":              "NEVER",
	"repo/sub/inner.md":              "inner, back to @../CLAUDE.md and on to @gone.md and @pic.png",
	"repo/sub/pic.png":               "\x89PNG\r\n\x1a\n",
	"repo/.claude/CLAUDE.md":         "dot-claude memory",
	"repo/.claude/rules/always.md":   "---\ndescription: everywhere\n---\nalways rule",
	"repo/.claude/rules/scoped.md":   "---\npaths:\n  - \"src/**\"\n---\nscoped rule",
	"repo/CLAUDE.local.md":           "local memory caf\xc3\xa9 caf\xe9 \xff",
	"repo/sub/CLAUDE.md":             "sub memory @./sub-extra.md @hops/hop1.md",
	"repo/sub/sub-extra.md":          "sub extra",
	"repo/sub/hops/hop1.md":          "hop 1 @hop2.md",
	"repo/sub/hops/hop2.md":          "hop 2 @hop3.md",
	"repo/sub/hops/hop3.md":          "hop 3 @hop4.md",
	"repo/sub/hops/hop4.md":          "hop 4 @hop5.md",
	"repo/sub/hops/hop5.md":          "hop 5 @hop1.md",
	"repo/.claude/rules/zeta.md":     "zeta rule",
	"repo/.claude/rules/mid.md":      "mid rule",
	"repo/.claude/rules/alpha/x.md":  "alpha rule",
	"repo/.claude/rules/beta.md":     "beta rule",
	"repo/sub/.claude/rules/deep.md": "deep rule",
}

// TestMemoryParityWithClaudeCode runs the real Claude Code and csa-agent
// in the same project with the same HOME and compares the memory files
// each sent the model: the same files, in the same order, with the same
// text.
func TestMemoryParityWithClaudeCode(t *testing.T) {
	claude := realClaude(t)
	dir := t.TempDir()
	writeFixture(t, dir, memoryFixture)
	home, cwd := filepath.Join(dir, "home"), filepath.Join(dir, "repo", "sub")

	paths := compareMemory(t, claude, dir, home, cwd, false)
	if len(paths) < 12 || !slices.Contains(paths, "repo/sub/hops/hop4.md") || slices.Contains(paths, "repo/sub/hops/hop5.md") ||
		slices.Contains(paths, "repo/sub/never.md") || slices.Contains(paths, "repo/.claude/rules/scoped.md") ||
		slices.Contains(paths, "repo/docs/style.md") || !slices.Contains(paths, "repo/CLAUDE.local.md") {
		t.Fatalf("unexpected memory files %q", paths)
	}
	// Once the user let the project import files from outside the working
	// directory (Claude Code asks), both read them.
	paths = compareMemory(t, claude, dir, home, cwd, true)
	if !slices.Contains(paths, "repo/docs/style.md") || !slices.Contains(paths, "home/notes/project-extra.md") {
		t.Fatalf("approved external imports not read: %q", paths)
	}
}

// compareMemory runs both programs and fails unless they sent the same
// memory; it returns the files' paths relative to dir. approve records
// the user's approval of external imports for the repository.
func compareMemory(t *testing.T, claude, dir, home, cwd string, approve bool) []string {
	t.Helper()
	claudeMem := memorySent(t, cwd, func(url string) *exec.Cmd {
		cmd := claudeCommand(t, claude, home, cwd, url, "memory parity")
		if approve {
			approveExternalImports(t, filepath.Join(home, ".claude.json"), filepath.Join(dir, "repo"))
		}
		return cmd
	}, claudeBlocks)
	agentMem := memorySent(t, cwd, func(url string) *exec.Cmd {
		return agentCommand(t, dir, home, cwd, url, "memory parity")
	}, agentBlocks)
	if !slices.Equal(claudeMem, agentMem) {
		t.Fatalf("memory differs:\nclaude:    %q\ncsa-agent: %q", claudeMem, agentMem)
	}
	var paths []string
	for _, b := range claudeMem {
		rel, _ := filepath.Rel(dir, b.path)
		paths = append(paths, rel)
	}
	t.Logf("memory files (external imports approved: %v): %q", approve, paths)
	return paths
}

// approveExternalImports records in ~/.claude.json what Claude Code's
// dialog records when the user allows a project's external imports.
func approveExternalImports(t *testing.T, claudeJSON, project string) {
	t.Helper()
	data, err := os.ReadFile(claudeJSON)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	projects, _ := doc["projects"].(map[string]any)
	projects[project] = map[string]any{"hasTrustDialogAccepted": true, "hasClaudeMdExternalIncludesApproved": true}
	if data, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(claudeJSON, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// block is one memory file as the model got it.
type block struct{ path, text string }

// memorySent runs one program in cwd against a fresh model server and
// returns the memory blocks of its first request.
func memorySent(t *testing.T, cwd string, command func(url string) *exec.Cmd, parse func(body string) []block) []block {
	t.Helper()
	body := firstRequest(t, memoryScript, "memory parity", cwd, command)
	if os.Getenv("CSA_MEMORY_DUMP") != "" {
		t.Logf("request:\n%s", body)
	}
	return parse(body)
}

// selfAs links this test binary under name (TestMain runs it as that
// program).
func selfAs(t *testing.T, name string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), name)
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// cleanEnv is the environment without the variables that point the
// programs at a user's own set-up.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || k == "PWD" || strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "CLAUDE") ||
			strings.HasPrefix(k, "XDG_") || strings.HasPrefix(k, "CSA_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// claudeMemory is Claude Code's memory section (in a system reminder of
// the first message) and claudeFile one file's header in it.
var (
	claudeMemory = regexp.MustCompile(`(?s)# claudeMd\n.*?\n\n(Contents of .*?)\n# currentDate`)
	claudeFile   = regexp.MustCompile(`(?:^|\n\n)Contents of (/[^\n]*?) \([^()\n]*\):\n\n`)
	agentFile    = regexp.MustCompile(`(?s)\nInstructions from ([^\n]*):\n<instructions>\n(.*?)\n</instructions>\n`)
)

func claudeBlocks(body string) []block {
	m := claudeMemory.FindStringSubmatch(requestText(body))
	if m == nil {
		return nil
	}
	section := m[1]
	heads := claudeFile.FindAllStringSubmatchIndex(section, -1)
	var out []block
	for i, h := range heads {
		end := len(section)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		out = append(out, block{section[h[2]:h[3]], section[h[1]:end]})
	}
	return out
}

func agentBlocks(body string) []block {
	var out []block
	for _, m := range agentFile.FindAllStringSubmatch(requestText(body), -1) {
		out = append(out, block{m[1], m[2]})
	}
	return out
}

// requestText is all the text of a Messages API request: the system
// prompt and the messages' text blocks.
func requestText(body string) string {
	var req struct {
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal([]byte(body), &req) != nil {
		return ""
	}
	var b strings.Builder
	add := func(raw json.RawMessage) {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			b.WriteString(s + "\n")
			return
		}
		var blocks []struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(raw, &blocks)
		for _, bl := range blocks {
			b.WriteString(bl.Text + "\n")
		}
	}
	add(req.System)
	for _, m := range req.Messages {
		add(m.Content)
	}
	return b.String()
}
