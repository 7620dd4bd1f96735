package main

import (
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// pluginFixture is a plugin installed in HOME as Claude Code installs one
// from a directory marketplace, which it loads in place (installed_plugins.json
// v2, known_marketplaces.json, enabled in the project's settings: the
// tests' set-up writes the user's) with agents (one in a subfolder, one
// named by its file), a command and a skill.
func pluginFixture(dir string) map[string]string {
	kit := filepath.Join(dir, "mkt/kit")
	mkt := filepath.Join(dir, "mkt")
	return map[string]string{
		"repo/.git/HEAD":                      "ref: refs/heads/main\n",
		"mkt/.claude-plugin/marketplace.json": `{"name": "local", "owner": {"name": "tests"}, "plugins": [{"name": "kit", "source": "./kit"}]}`,
		"mkt/kit/.claude-plugin/plugin.json":  `{"name": "kit", "version": "1.0.0"}`,
		"repo/.claude/settings.json":          `{"enabledPlugins": {"kit@local": true}}`,
		"home/.claude/plugins/known_marketplaces.json": `{"local": {"source": {"source": "directory", "path": "` + mkt +
			`"}, "installLocation": "` + mkt + `", "lastUpdated": "2025-01-01T00:00:00.000Z"}}`,
		"home/.claude/plugins/installed_plugins.json": `{"version": 2, "plugins": {"kit@local": [{"scope": "user", "installPath": "` + kit +
			`", "version": "1.0.0", "installedAt": "2025-01-01T00:00:00.000Z", "lastUpdated": "2025-01-01T00:00:00.000Z"}]}}`,
		"mkt/kit/agents/reviewer.md":    "---\nname: reviewer\ndescription: Reviews a change.\n---\nYou review.\n",
		"mkt/kit/agents/team/tester.md": "---\ndescription: Writes the tests.\n---\nYou test.\n",
		"mkt/kit/commands/ship.md":      "---\ndescription: Ships the release.\n---\nShip it.\n",
		"mkt/kit/skills/lint/SKILL.md":  "---\nname: lint\ndescription: Lints the code.\n---\nLint.\n",
	}
}

// listed are the "- name: description" lines of a request naming the
// plugin's things ("kit:"), without the " (Tools: ...)" Claude Code adds
// to every agent's line (csa-agent does not: not a plugin matter).
var listed = regexp.MustCompile(`(?m)^- (kit:[^:\n]+(?::[^:\n]+)*?): (.*?)(?: \(Tools: [^\n]*\))?$`)

func kitLines(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range listed.FindAllStringSubmatch(text, -1) {
		if l := m[1] + ": " + m[2]; !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// TestPluginsParityWithClaudeCode runs the real Claude Code and csa-agent
// with a plugin installed in HOME and checks that both offer the model the
// same plugin agents (kit:name, kit:team:tester), commands and skills.
func TestPluginsParityWithClaudeCode(t *testing.T) {
	claude := realClaude(t)
	dir := t.TempDir()
	writeFixture(t, dir, pluginFixture(dir))
	home, cwd := filepath.Join(dir, "home"), filepath.Join(dir, "repo")
	prompt := "parity: list the plugin's agents"
	claudeText, agentText := bothSent(t, claude, dir, home, cwd, prompt)
	want := []string{
		"kit:lint: Lints the code.",
		"kit:reviewer: Reviews a change.",
		"kit:ship: Ships the release.",
		"kit:team:tester: Writes the tests.",
	}
	if got := kitLines(claudeText); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Claude Code lists\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := kitLines(agentText); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("csa-agent lists\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
