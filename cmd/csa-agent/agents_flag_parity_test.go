package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentsFlagParityWithClaudeCode gives the real Claude Code and
// csa-agent the same --agents JSON in a project with an agent file of one
// of its names: both offer the model the flag's agents, the flag's
// definition winning over the project's, and leave out the invalid one.
func TestAgentsFlagParityWithClaudeCode(t *testing.T) {
	claude := realClaude(t)
	dir := t.TempDir()
	for name, content := range map[string]string{
		"repo/.git/HEAD":                 "ref: refs/heads/main\n",
		"repo/.claude/agents/planner.md": "---\nname: planner\ndescription: The project's planner.\n---\nYou plan.\n",
		"repo/.claude/agents/keeper.md":  "---\nname: keeper\ndescription: The project's keeper.\n---\nYou keep.\n",
	} {
		if err := writeFile(filepath.Join(dir, name), content); err != nil {
			t.Fatal(err)
		}
	}
	home, cwd := filepath.Join(dir, "home"), filepath.Join(dir, "repo")
	agents := `{"reviewer": {"description": "Reviews code from the flag.", "prompt": "You review.", "tools": ["Read", "Grep"], "model": "haiku"},
		"planner": {"description": "The flag's planner.", "prompt": "You plan better."}}`
	compareAgents(t, claude, dir, home, cwd, agents, map[string]bool{
		"- reviewer: Reviews code from the flag.": true,
		"- planner: The flag's planner.":          true,
		"- keeper: The project's keeper.":         true,
		"The project's planner":                   false,
	})
	// One agent without a description voids the whole flag in both.
	broken := strings.TrimSuffix(agents, "}") + `, "broken": {"prompt": "no description"}}`
	compareAgents(t, claude, dir, home, cwd, broken, map[string]bool{
		"Reviews code from the flag":        false,
		"The flag's planner":                false,
		"- planner: The project's planner.": true,
		"- broken":                          false,
	})
}

// compareAgents runs both programs with --agents JSON and checks, for
// each string, that both requests have it or both lack it as want says.
func compareAgents(t *testing.T, claude, dir, home, cwd, agents string, want map[string]bool) {
	t.Helper()
	withAgents := func(cmd *exec.Cmd) *exec.Cmd {
		cmd.Args = append(cmd.Args, "--agents", agents)
		return cmd
	}
	claudeText := requestSent(t, cwd, func(url string) *exec.Cmd {
		return withAgents(claudeCommand(t, claude, home, cwd, url, "parity: list them"))
	})
	agentText := requestSent(t, cwd, func(url string) *exec.Cmd {
		return withAgents(agentCommand(t, dir, home, cwd, url, "parity: list them"))
	})
	for s, present := range want {
		if strings.Contains(claudeText, s) != present {
			t.Errorf("Claude Code's request has %q: %v, want %v", s, !present, present)
		}
		if strings.Contains(agentText, s) != present {
			t.Errorf("csa-agent's request has %q: %v, want %v", s, !present, present)
		}
	}
}
