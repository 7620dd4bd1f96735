package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// skillDirsFixture has skills and commands in the user's folder, the
// repository's root, a folder between it and the working directory and
// the working directory itself, some sharing a name.
var skillDirsFixture = map[string]string{
	"repo/.git/HEAD":                                "ref: refs/heads/main\n",
	"home/.claude/skills/shared/SKILL.md":           "---\ndescription: zz the user's shared skill\n---\nbody: the user's shared",
	"home/.claude/skills/user-only/SKILL.md":        "---\ndescription: zz the user's own skill\n---\nuser",
	"repo/.claude/skills/shared/SKILL.md":           "---\ndescription: zz the root's shared skill\n---\nbody: the root's shared",
	"repo/.claude/skills/root-only/SKILL.md":        "---\ndescription: zz the root's own skill\n---\nroot",
	"repo/app/.claude/skills/shared/SKILL.md":       "---\ndescription: zz the middle folder's shared skill\n---\nbody: the middle folder's shared",
	"repo/app/.claude/skills/mid-only/SKILL.md":     "---\ndescription: zz the middle folder's own skill\n---\nmid",
	"repo/app/.claude/commands/mid-command.md":      "---\ndescription: zz the middle folder's command\n---\nmid",
	"repo/app/web/.claude/skills/shared/SKILL.md":   "---\ndescription: zz the working directory's shared skill\n---\nbody: the working directory's shared",
	"repo/app/web/.claude/skills/cwd-only/SKILL.md": "---\ndescription: zz the working directory's own skill\n---\ncwd",
	"repo/app/web/.claude/commands/cwd-command.md":  "---\ndescription: zz the working directory's command\n---\ncwd",
	"repo/.claude/skills/near/SKILL.md":             "---\ndescription: zz the root's near skill\n---\nbody: the root's near",
	"repo/app/web/.claude/skills/near/SKILL.md":     "---\ndescription: zz the working directory's near skill\n---\nbody: the working directory's near",
}

// listedSkill is one line of a skill listing naming a fixture's skill.
var listedSkill = regexp.MustCompile(`(?m)^- ([a-z-]+): zz (.*)$`)

// TestSkillDirsParityWithClaudeCode runs the real Claude Code and
// csa-agent in a folder below the repository's root and compares the
// skills and commands each offers the model: those of every folder from
// the working directory up to the root, and which one wins a shared name.
func TestSkillDirsParityWithClaudeCode(t *testing.T) {
	claude := realClaude(t)
	dir := t.TempDir()
	writeFixture(t, dir, skillDirsFixture)
	home, cwd := filepath.Join(dir, "home"), filepath.Join(dir, "repo", "app", "web")
	listed := func(text string) []string {
		var out []string
		for _, m := range listedSkill.FindAllStringSubmatch(text, -1) {
			out = append(out, m[1]+": "+m[2])
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	claudeSkills := listed(requestSent(t, cwd, func(url string) *exec.Cmd {
		return claudeCommand(t, claude, home, cwd, url, "parity: list them")
	}))
	agentSkills := listed(requestSent(t, cwd, func(url string) *exec.Cmd {
		return agentCommand(t, dir, home, cwd, url, "parity: list them")
	}))
	t.Logf("Claude Code's: %q", claudeSkills)
	// Claude Code lists every skill of a shared name; csa-agent lists the
	// one that runs. So: the same names, and each of csa-agent's lines is
	// one of Claude Code's.
	names := func(lines []string) []string {
		var out []string
		for _, l := range lines {
			name, _, _ := strings.Cut(l, ":")
			out = append(out, name)
		}
		return slices.Compact(out)
	}
	if !slices.Equal(names(claudeSkills), names(agentSkills)) || len(claudeSkills) < 8 {
		t.Errorf("skills differ:\nclaude:    %q\ncsa-agent: %q", claudeSkills, agentSkills)
	}
	for _, l := range agentSkills {
		if !slices.Contains(claudeSkills, l) {
			t.Errorf("csa-agent lists %q, Claude Code does not", l)
		}
	}
	// Of the skills sharing a name, both run the same one.
	ran := func(text string) []string { return sharedBody.FindAllString(text, -1) }
	for _, prompt := range []string{"/shared parity", "/near parity"} {
		claudeRan := ran(requestSent(t, cwd, func(url string) *exec.Cmd {
			return claudeCommand(t, claude, home, cwd, url, prompt)
		}))
		agentRan := ran(requestSent(t, cwd, func(url string) *exec.Cmd {
			return agentCommand(t, dir, home, cwd, url, prompt)
		}))
		t.Logf("%s: Claude Code ran %q", prompt, claudeRan)
		if len(claudeRan) != 1 || !slices.Equal(claudeRan, agentRan) {
			t.Fatalf("%s ran:\nclaude:    %q\ncsa-agent: %q", prompt, claudeRan, agentRan)
		}
	}
}

// sharedBody is the body of one of the skills sharing a name.
var sharedBody = regexp.MustCompile(`body: [^\n]*(shared|near)`)
