package main

import (
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// frontMatterFixture is a project whose agents, skills and commands have
// front matter of the shapes published collections use: descriptions
// holding "Context: ..." and "<example>" on one line (YAML refuses them
// plain: Claude Code quotes them and reads again) or over lines (not
// YAML at all), "\n" escapes, "#", quotes, block scalars, lists inline
// and dashed, "tools: *", tabs, YAML 1.2's yes and numbers.
var frontMatterFixture = map[string]string{
	"repo/.git/HEAD": "ref: refs/heads/main\n",
	"repo/.claude/agents/examples.md": "---\nname: fm-examples\ndescription: Use it after a change. Examples: <example>Context: code was " +
		"written. user: \"review it\" assistant: \"I will\"</example>\nmodel: inherit\n---\nYou review.\n",
	"repo/.claude/agents/escapes.md": "---\nname: fm-escapes\ndescription: First line.\\n\\n<example>\\nuser: \"hi\"\\n</example>\n---\nYou greet.\n",
	"repo/.claude/agents/lines.md": "---\nname: fm-lines\ndescription: Use it when needed.\nContext: a user asks\n<example>\nuser: hi\n</example>\n" +
		"---\nYou answer.\n",
	"repo/.claude/agents/hash.md":      "---\nname: fm-hash # the name\ndescription: Handles C# code, issue#42 # not this\ncolor: \"#ff0000\"\n---\nYou code.\n",
	"repo/.claude/agents/quoted.md":    "---\nname: 'fm-quoted'\ndescription: \"Quoted: it's \\\"fine\\\"\"\n---\nYou quote.\n",
	"repo/.claude/agents/block.md":     "---\nname: fm-block\ndescription: >-\n  Folded over\n  two lines: and a colon\ntools: |\n  Read, Grep\n---\nYou fold.\n",
	"repo/.claude/agents/inline.md":    "---\nname: fm-inline\ndescription: Inline tools.\ntools: [Read, Grep]\n---\nYou list.\n",
	"repo/.claude/agents/dashed.md":    "---\nname: fm-dashed\ndescription: Dashed tools.\ntools:\n  - Read\n  - Glob\n---\nYou list.\n",
	"repo/.claude/agents/star.md":      "---\nname: fm-star\ndescription: All tools: any of them.\ntools: *\n---\nYou do all.\n",
	"repo/.claude/agents/tabs.md":      "---\nname: fm-tabs\ndescription: Tabbed: tools.\ntools:\n\t- Read\n---\nYou tab.\n",
	"repo/.claude/agents/yes.md":       "---\nname: fm-yes\ndescription: yes\n---\nYou agree.\n",
	"repo/.claude/agents/number.md":    "---\nname: fm-number\ndescription: 42\n---\nYou count.\n",
	"repo/.claude/agents/continued.md": "---\nname: fm-continued\ndescription: Starts here\n  and goes on\n---\nYou go on.\n",
	"repo/.claude/agents/cut.md":       "---\nname: fm-cut\ndescription: Before --- after\n---\nYou cut.\n",
	"repo/.claude/skills/fm-skill-lines/SKILL.md": "---\nname: fm-skill-lines\ndescription: Use it when needed.\nContext: a user asks\n<example>\n" +
		"---\n\n# Lines skill from its body\n\nDo it.\n",
	"repo/.claude/skills/fm-skill-hash/SKILL.md": "---\ndescription: Formats C# code # not this\nallowed-tools: [Read]\n---\nFormat.\n",
	"repo/.claude/commands/fm-cmd-lines.md":      "---\ndescription: Runs it.\nContext: none\n<example>\n---\nRun the command from its body.\n",
	"repo/.claude/commands/fm-cmd-example.md":    "---\ndescription: Runs it. Example: <example>x</example>\n---\nRun.\n",
}

// fmEntries are the "- fm-...: description" entries of a request,
// without the " (Tools: ...)" after an agent's. An entry ends before the
// next line starting "- " or a blank line not followed by a "<" line: a
// description may run over lines, blank ones and "<example>" included.
func fmEntries(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, start := range fmStart.FindAllStringIndex(text, -1) {
		rest := text[start[0]+2:]
		end := len(rest)
		for i := 0; i < len(rest); i++ {
			if rest[i] != '\n' {
				continue
			}
			if next := rest[i+1:]; strings.HasPrefix(next, "- ") || next == "" ||
				strings.HasPrefix(next, "\n") && !strings.HasPrefix(strings.TrimLeft(next, "\n"), "<") {
				end = i
				break
			}
		}
		l := agentTools.ReplaceAllString(rest[:end], "")
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

var (
	fmStart    = regexp.MustCompile(`(?m)^- fm-`)
	agentTools = regexp.MustCompile(` \(Tools: [^\n]*\)$`)
)

// TestFrontMatterParityWithClaudeCode runs the real Claude Code and
// csa-agent on the fixture and checks that both offer the model the same
// agents, skills and commands, described alike.
func TestFrontMatterParityWithClaudeCode(t *testing.T) {
	claude := realClaude(t)
	dir := t.TempDir()
	writeFixture(t, dir, frontMatterFixture)
	home, cwd := filepath.Join(dir, "home"), filepath.Join(dir, "repo")
	prompt := "parity: list them"
	claudeText, agentText := bothSent(t, claude, dir, home, cwd, prompt)
	want := []string{
		"fm-block: Folded over two lines: and a colon",
		"fm-cmd-example: Runs it. Example: <example>x</example>",
		"fm-cmd-lines: Run the command from its body.",
		"fm-continued: Starts here and goes on",
		"fm-cut: Before",
		"fm-dashed: Dashed tools.",
		"fm-escapes: First line.\n\n<example>\nuser: \"hi\"\n</example>",
		`fm-examples: Use it after a change. Examples: <example>Context: code was written. user: "review it" assistant: "I will"</example>`,
		"fm-hash: Handles C# code, issue#42",
		"fm-inline: Inline tools.",
		`fm-quoted: Quoted: it's "fine"`,
		"fm-skill-hash: Formats C# code",
		"fm-skill-lines: Lines skill from its body",
		"fm-star: All tools: any of them.",
		"fm-tabs: Tabbed: tools.",
		"fm-yes: yes",
	}
	if got := fmEntries(claudeText); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Claude Code lists\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := fmEntries(agentText); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("csa-agent lists\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
