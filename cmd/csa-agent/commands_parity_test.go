package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// commandsFixture is a project with nested subagent definitions (the
// project's deployer and the user's of the same name), a skill with a
// display name, a description-less command using $0, $1, $ARGUMENTS and
// one with shell lines its allowed-tools allow.
var commandsFixture = map[string]string{
	"repo/.git/HEAD": "ref: refs/heads/main\n",
	"repo/.claude/agents/team/backend/api.md": "---\nname: api-dev\ndescription: Works on the HTTP API.\ntools: Read, Grep\n---\nYou work on the API.\n",
	"repo/.claude/agents/team/README.md":      "# Our team's agents\n\nOne file per agent.\n",
	"repo/.claude/agents/ops/deployer.md":     "---\nname: deployer\ndescription: The project's deployer.\n---\nYou deploy.\n",
	"home/.claude/agents/mine/deployer.md":    "---\nname: deployer\ndescription: The user's deployer.\n---\nYou deploy.\n",
	"repo/.claude/skills/pr-review/SKILL.md":  "---\nname: PR Review Helper\n---\n\n## Review a pull request\n\nReview it.\n",
	"repo/.claude/commands/changelog.md":      "# Write the changelog\n\nFor $0 ($1); all: $ARGUMENTS\n",
	"repo/report.sh":                          "#!/bin/sh\necho 'report: ok'\necho careful >&2\n",
	"repo/notes.txt":                          "the notes",
	"repo/.claude/commands/shell.md": "---\ndescription: Shell lines\nallowed-tools: Bash(./report.sh:*)\n---\n" +
		"parity !`./report.sh` and !`cat notes.txt`\n",
}

const commandsScript = `
[[rule]]
name = "parity"
contains = "parity"
  [[rule.step]]
  text = "noted"
`

// TestCommandsParityWithClaudeCode runs the real Claude Code and
// csa-agent on the same fixture and checks that both offer the model the
// same subagents and skills and send the same expanded commands.
func TestCommandsParityWithClaudeCode(t *testing.T) {
	claude := realClaude(t)
	dir := t.TempDir()
	writeFixture(t, dir, commandsFixture)
	if err := os.Chmod(filepath.Join(dir, "repo/report.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	home, cwd := filepath.Join(dir, "home"), filepath.Join(dir, "repo")
	for _, prompt := range []string{"parity: list them", `/changelog v2 "big release" extra parity`, "/shell"} {
		claudeText, agentText := bothSent(t, claude, dir, home, cwd, prompt)
		want := map[string]bool{
			"- api-dev: Works on the HTTP API.":                          true,
			"- deployer: The project's deployer.":                        true,
			"The user's deployer":                                        false,
			"- pr-review: Review a pull request":                         true,
			"- changelog: Write the changelog":                           true,
			"Our team's agents":                                          false,
			"For v2 (big release); all: v2 \"big release\" extra parity": strings.HasPrefix(prompt, "/changelog"),
			"parity report: ok\ncareful and the notes":                   prompt == "/shell",
		}
		for s, present := range want {
			if strings.Contains(claudeText, s) != present {
				t.Errorf("%q: Claude Code's request has %q: %v, want %v", prompt, s, !present, present)
			}
			if strings.Contains(agentText, s) != present {
				t.Errorf("%q: csa-agent's request has %q: %v, want %v", prompt, s, !present, present)
			}
		}
	}
}

// requestSent runs one program in cwd against a fresh model server and
// returns the text of its first request: system prompt, messages and
// tool descriptions.
func requestSent(t *testing.T, cwd string, command func(url string) *exec.Cmd) string {
	t.Helper()
	body := firstRequest(t, commandsScript, "parity", cwd, command)
	var req struct {
		Tools []struct {
			Description string `json:"description"`
		} `json:"tools"`
	}
	_ = json.Unmarshal([]byte(body), &req)
	text := requestText(body)
	for _, tl := range req.Tools {
		text += tl.Description + "\n"
	}
	return text
}
