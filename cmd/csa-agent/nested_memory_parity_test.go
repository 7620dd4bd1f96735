package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// rulesFixture has rules scoped to paths (front matter paths:) in the
// user's and the project's rules, and memory in the folder of the file
// the model reads (src/a.go): Claude Code attaches what applies to it.
var rulesFixture = map[string]string{
	"home/.claude/rules/go.md":          "---\npaths: \"**/*.go\"\n---\nuser go rule",
	"repo/.git/HEAD":                    "ref: refs/heads/main\n",
	"repo/.claude/rules/src.md":         "---\npaths:\n  - \"src/**\"\n---\nsrc rule\n\nsecond line",
	"repo/.claude/rules/docs.md":        "---\npaths:\n  - \"docs/**\"\n---\ndocs rule",
	"repo/.claude/rules/always.md":      "always rule",
	"repo/src/a.go":                     "package a\n",
	"repo/src/CLAUDE.md":                "src memory @extra.md",
	"repo/src/extra.md":                 "src extra",
	"repo/src/.claude/rules/any.md":     "src rule for every path",
	"repo/src/.claude/rules/go-only.md": "---\npaths: \"*.go\"\n---\nsrc go rule",
	"repo/src/.claude/rules/ts-only.md": "---\npaths: \"*.ts\"\n---\nsrc ts rule",
	"repo/lib/CLAUDE.md":                "lib memory: not on the way to src",
}

// agentRules is csa-agent's reminder of the rules covering a file read.
var agentRules = regexp.MustCompile(`(?s)<system-reminder>\n(Contents of /.*?)\n</system-reminder>`)

// TestNestedMemoryParityWithClaudeCode runs the real Claude Code and
// csa-agent in a project with rules scoped to paths: after the model reads
// a file, the rules covering it reach the model, the same files with the
// same text in both.
func TestNestedMemoryParityWithClaudeCode(t *testing.T) {
	claude := realClaude(t)
	dir := t.TempDir()
	writeFixture(t, dir, rulesFixture)
	home, cwd := filepath.Join(dir, "home"), filepath.Join(dir, "repo")
	script := fmt.Sprintf(`
[[rule]]
name = "rules"
contains = "rules parity"
  [[rule.step]]
  call = { name = "Read", args = { file_path = %q } }
  [[rule.step]]
  text = "noted"
`, filepath.Join(cwd, "src", "a.go"))

	claudeBody := firstRequest(t, script, "package a", cwd, func(url string) *exec.Cmd {
		cmd := claudeCommand(t, claude, home, cwd, url, "rules parity")
		cmd.Args[slices.Index(cmd.Args, "--max-turns")+1] = "3"
		return cmd
	})
	if os.Getenv("CSA_RULES_DUMP") != "" {
		t.Logf("claude request:\n%s", claudeBody)
	}
	claudeGot := rulesSent(claudeBody, func(m map[string]any) []string {
		if s, ok := m["content"].(string); ok && m["role"] == "system" && strings.HasPrefix(s, "Contents of /") {
			return []string{s}
		}
		return nil
	})
	agentGot := rulesSent(firstRequest(t, script, "package a", cwd, func(url string) *exec.Cmd {
		return agentCommand(t, dir, home, cwd, url, "rules parity")
	}), func(m map[string]any) []string {
		s, _ := m["content"].(string)
		var out []string
		for _, sub := range agentRules.FindAllStringSubmatch(s, -1) {
			out = append(out, sub[1])
		}
		return out
	})
	if !slices.Equal(claudeGot, agentGot) {
		t.Fatalf("scoped rules differ:\nclaude:    %q\ncsa-agent: %q", claudeGot, agentGot)
	}
	t.Logf("attached: %q", claudeGot)
	for _, want := range []string{"user go rule", "src rule\n\nsecond line", "src memory", "src go rule"} {
		if len(claudeGot) != 1 || !strings.Contains(claudeGot[0], want) {
			t.Fatalf("%q not attached: %q", want, claudeGot)
		}
	}
	if strings.Contains(claudeGot[0], "ts rule") || strings.Contains(claudeGot[0], "lib memory") {
		t.Fatalf("a file that does not apply was attached: %q", claudeGot)
	}
}

// rulesSent applies pick to every message and content block of a
// request, and returns what it picked.
func rulesSent(body string, pick func(map[string]any) []string) []string {
	var req struct {
		Messages []map[string]any `json:"messages"`
	}
	if json.Unmarshal([]byte(body), &req) != nil {
		return nil
	}
	var out []string
	for _, m := range req.Messages {
		out = append(out, pick(m)...)
		blocks, _ := m["content"].([]any)
		for _, b := range blocks {
			if bm, ok := b.(map[string]any); ok {
				out = append(out, pick(bm)...)
			}
		}
	}
	return out
}
