package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// styleScript answers the parity prompt with plain text.
const styleScript = `
[[rule]]
name = "style"
contains = "style parity"
  [[rule.step]]
  text = "noted"
`

// styleFixture is a project and HOME with output styles in every folder
// Claude Code reads: the user's, the repository's and a subfolder's (the
// working directory's, which wins on a shared name). Each body ends with
// "End of style." so its section can be cut out of either prompt.
var styleFixture = map[string]string{
	"home/.claude/output-styles/terse.md": "---\ndescription: few words\n---\n\n# Terse\nAnswer in one line.\n\n" +
		"Never list. caf\xc3\xa9\nEnd of style.\n",
	"repo/.git/HEAD": "ref: refs/heads/main\n",
	"repo/.claude/output-styles/team.md": "---\nname: Team voice\nkeep-coding-instructions: true\n---\n" +
		"The repository's voice: formal.\nEnd of style.\n",
	"repo/sub/.claude/output-styles/nested/team.md": "---\nname: Team voice\nkeep-coding-instructions: true\n---\n" +
		"The subfolder's voice: plain words.\n\n  Indented line kept.\nEnd of style.\n",
	// Claude Code reads the project's settings in the working directory.
	"repo/sub/.claude/settings.json": `{"outputStyle": "Team voice"}`,
}

// styleSection is the output style part of a system prompt.
var styleSection = regexp.MustCompile(`(?s)# Output Style: [^\n]*\n.*?End of style\.`)

// TestOutputStyleParityWithClaudeCode runs the real Claude Code and
// csa-agent on the same project and HOME with a custom style selected, in
// the project's settings and then in the local settings, and compares the
// style part of the system prompt each sent the model.
func TestOutputStyleParityWithClaudeCode(t *testing.T) {
	claude := realClaude(t)
	dir := t.TempDir()
	writeFixture(t, dir, styleFixture)
	home, cwd := filepath.Join(dir, "home"), filepath.Join(dir, "repo", "sub")

	claudeSys, agentSys := compareStyle(t, claude, dir, home, cwd, "")
	if !strings.Contains(claudeSys, "The subfolder's voice") {
		t.Fatalf("the working directory's style did not win:\n%s", claudeSys)
	}
	if !strings.Contains(agentSys, "Read a file before editing it") {
		t.Fatal("csa-agent left out its coding guidance under a style that keeps it")
	}

	// The local settings win over the project's; this style does not keep
	// the coding guidance. (Claude Code 2.1.197's prompt for -p has no
	// such section to leave out; csa-agent leaves its own out.)
	if err := writeFile(filepath.Join(cwd, ".claude", "settings.local.json"), `{"outputStyle": "terse"}`); err != nil {
		t.Fatal(err)
	}
	claudeSys, agentSys = compareStyle(t, claude, dir, home, cwd, "")
	if !strings.Contains(claudeSys, "# Output Style: terse\n# Terse") {
		t.Fatalf("the user's style was not selected:\n%s", claudeSys)
	}
	if strings.Contains(agentSys, "Read a file before editing it") {
		t.Fatal("a style without keep-coding-instructions kept the coding guidance")
	}

	// An installed plugin's style is named plugin:name. The plugin is
	// installed from a marketplace in a folder, as Claude Code installs it;
	// csa-agent reads enabledPlugins from the user's settings and the
	// project root's, Claude Code from the user's and the working
	// directory's: the user's serve both (written after the test set-up
	// writes Claude Code's: userSettings).
	market := filepath.Join(dir, "market")
	plug := filepath.Join(market, "plug") // a folder marketplace's plugins stay in it
	plugins := filepath.Join(home, ".claude", "plugins")
	for name, content := range map[string]string{
		filepath.Join(market, ".claude-plugin", "marketplace.json"): `{"name": "mkt", "owner": {"name": "us"}, "plugins": [{"name": "plug", "source": "./plug"}]}`,
		filepath.Join(plug, ".claude-plugin", "plugin.json"):        `{"name": "plug", "version": "1.0.0"}`,
		filepath.Join(plug, "output-styles", "voice.md"):            "---\ndescription: the plugin's voice\n---\nThe plugin speaks.\nEnd of style.\n",
		filepath.Join(plugins, "known_marketplaces.json"): `{"mkt": {"source": {"source": "directory", "path": "` + market +
			`"}, "installLocation": "` + market + `", "lastUpdated": "2026-01-01T00:00:00.000Z"}}`,
		filepath.Join(plugins, "installed_plugins.json"): `{"version": 2, "plugins": {"plug@mkt": [{"scope": "user", "installPath": "` + plug +
			`", "version": "1.0.0", "installedAt": "2026-01-01T00:00:00.000Z", "lastUpdated": "2026-01-01T00:00:00.000Z"}]}}`,
		filepath.Join(cwd, ".claude", "settings.local.json"): `{"outputStyle": "plug:voice"}`,
	} {
		if err := writeFile(name, content); err != nil {
			t.Fatal(err)
		}
	}
	withPlugin := `{"skipDangerousModePermissionPrompt": true, "enabledPlugins": {"plug@mkt": true}}`
	claudeSys, _ = compareStyle(t, claude, dir, home, cwd, withPlugin)
	if !strings.Contains(claudeSys, "# Output Style: plug:voice\nThe plugin speaks.") {
		t.Fatalf("the plugin's style was not selected:\n%s", claudeSys)
	}

	// A plugin's style with force-for-plugin applies whatever the settings
	// say.
	if err := writeFile(filepath.Join(plug, "output-styles", "forced.md"),
		"---\nforce-for-plugin: true\n---\nThe plugin insists.\nEnd of style.\n"); err != nil {
		t.Fatal(err)
	}
	claudeSys, _ = compareStyle(t, claude, dir, home, cwd, withPlugin)
	if !strings.Contains(claudeSys, "# Output Style: plug:forced\nThe plugin insists.") {
		t.Fatalf("the forced style was not applied:\n%s", claudeSys)
	}
}

// compareStyle runs both programs and fails unless the style sections of
// their system prompts are equal; it returns both system prompts.
// userSettings, when not "", replaces the user's settings file the test
// set-up writes for Claude Code, for both programs.
func compareStyle(t *testing.T, claude, dir, home, cwd, userSettings string) (claudeSys, agentSys string) {
	t.Helper()
	claudeSys = systemText(firstRequest(t, styleScript, "style parity", cwd, func(url string) *exec.Cmd {
		cmd := claudeCommand(t, claude, home, cwd, url, "style parity")
		if userSettings != "" {
			if err := writeFile(filepath.Join(home, ".claude", "settings.json"), userSettings); err != nil {
				t.Fatal(err)
			}
		}
		if f := os.Getenv("CSA_STYLE_DEBUG"); f != "" { // Claude Code's debug log, to see why
			cmd.Args = append(cmd.Args, "--debug-file", f)
		}
		return cmd
	}))
	agentSys = systemText(firstRequest(t, styleScript, "style parity", cwd, func(url string) *exec.Cmd {
		return agentCommand(t, dir, home, cwd, url, "style parity")
	}))
	if os.Getenv("CSA_STYLE_DUMP") != "" {
		t.Logf("claude system:\n%s\ncsa-agent system:\n%s", claudeSys, agentSys)
	}
	want, got := styleSection.FindAllString(claudeSys, -1), styleSection.FindAllString(agentSys, -1)
	if len(want) != 1 || len(got) != 1 || want[0] != got[0] {
		t.Fatalf("output style sections differ:\nclaude:    %q\ncsa-agent: %q", want, got)
	}
	t.Logf("style section: %q", want[0])
	return claudeSys, agentSys
}

// systemText is the system prompt of a Messages API request, its blocks
// joined by newlines.
func systemText(body string) string {
	var req struct {
		System json.RawMessage `json:"system"`
	}
	if json.Unmarshal([]byte(body), &req) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(req.System, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(req.System, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text + "\n")
	}
	return b.String()
}
