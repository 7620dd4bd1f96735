package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Claude Code set-up as people have them (issue 25), written by the
// benchmark in Claude Code's own layout: the plugins installed the way
// Claude Code installs them (installed_plugins.json version 2, each
// enabled in ~/.claude/settings.json), user and project agents (some in
// subfolders), skills with bundled files, commands and memory files.
const (
	setupPlugins       = 6
	setupUserAgents    = 20 // 5 of them in ~/.claude/agents/team
	setupProjectAgents = 10 // 3 of them in .claude/agents/review
	setupUserSkills    = 10
	setupProjectSkills = 5
	setupProjectCmds   = 3
	// Each plugin's parts.
	pluginCommands, pluginSkills, pluginAgents = 3, 2, 2
)

// claudeSetup is what writeClaudeSetup wrote: the names a session must
// offer the model when all of it is loaded.
type claudeSetup struct {
	skills  []string // skills and commands the Skill tool lists
	agents  []string // the agents the Task tool lists
	markers []string // a line of each memory file
}

// prose is n bytes or so of markdown, the bulk of a body that only its
// use needs.
func prose(title string, n int) string {
	var s strings.Builder
	fmt.Fprintf(&s, "# %s\n\n", title)
	for i := 0; s.Len() < n; i++ {
		fmt.Fprintf(&s, "%d. When the task calls for %s, read the files it names first, keep each change small, and check it before going on.\n", i+1, title)
	}
	return s.String()
}

func writeFiles(b *testing.B, files map[string]string) {
	b.Helper()
	for path, text := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			b.Fatal(err)
		}
	}
}

func jsonText(b *testing.B, v any) string {
	b.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

func agentFile(name, model string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: Use for %s work; hand it the whole task.\ntools: Read, Grep, Glob, Bash\nmodel: %s\ncolor: blue\n---\n\n%s",
		name, name, model, prose("The "+name+" agent", 3000))
}

func skillFile(name string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: Guides %s tasks step by step. Use when the user asks for %s.\nallowed-tools: Read, Grep\n---\n\n%s",
		name, name, name, prose("The "+name+" skill", 6000))
}

func commandFile(name string) string {
	return fmt.Sprintf("---\ndescription: Runs the %s routine\nargument-hint: [target]\nallowed-tools: Bash(git status:*)\n---\n\n%s\nThe target is $ARGUMENTS.\n",
		name, prose("The "+name+" command", 2000))
}

// skillDir writes a skill folder: SKILL.md and the bundled files a skill
// reads while it runs, which nothing needs at start.
func skillDir(files map[string]string, dir, name string) {
	files[filepath.Join(dir, name, "SKILL.md")] = skillFile(name)
	files[filepath.Join(dir, name, "references", "guide.md")] = prose(name+" reference", 20000)
	files[filepath.Join(dir, name, "scripts", "check.sh")] = "#!/bin/sh\necho checked\n"
}

// writeClaudeSetup writes the set-up into home and the project proj; MCP
// servers of the plugins run mcpCommand (a fast Go server: its start is
// not what is measured). Plugin hooks are on tool use and Stop only, so
// none runs before the first request.
func writeClaudeSetup(b *testing.B, home, proj string, mcpCommand []string) claudeSetup {
	b.Helper()
	var set claudeSetup
	files := map[string]string{}
	claude := filepath.Join(home, ".claude")
	installed := map[string]any{}
	enabled := map[string]bool{}
	for p := 1; p <= setupPlugins; p++ {
		name := fmt.Sprintf("bench-plugin-%d", p)
		id := name + "@bench-market"
		root := filepath.Join(claude, "plugins", "cache", "bench-market", name, "1.0.0")
		installed[id] = []map[string]any{{"scope": "user", "installPath": root, "version": "1.0.0",
			"installedAt": "2025-01-01T00:00:00.000Z", "lastUpdated": "2025-01-01T00:00:00.000Z"}}
		enabled[id] = true
		files[filepath.Join(root, ".claude-plugin", "plugin.json")] = jsonText(b, map[string]any{
			"name": name, "version": "1.0.0", "description": "Benchmark plugin " + name})
		for i := 1; i <= pluginCommands; i++ {
			c := fmt.Sprintf("cmd-%d", i)
			files[filepath.Join(root, "commands", c+".md")] = commandFile(name + " " + c)
			set.skills = append(set.skills, name+":"+c)
		}
		for i := 1; i <= pluginSkills; i++ {
			s := fmt.Sprintf("skill-%d", i)
			skillDir(files, filepath.Join(root, "skills"), s)
			set.skills = append(set.skills, name+":"+s)
		}
		for i := 1; i <= pluginAgents; i++ {
			a := fmt.Sprintf("%s-agent-%d", name, i)
			files[filepath.Join(root, "agents", a+".md")] = agentFile(a, "sonnet")
		}
		files[filepath.Join(root, "hooks", "hooks.json")] = jsonText(b, map[string]any{
			"description": "Benchmark hooks",
			"hooks": map[string]any{
				"PreToolUse":  []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/pre.sh"}}}},
				"PostToolUse": []any{map[string]any{"matcher": "Write|Edit", "hooks": []any{map[string]any{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/post.sh"}}}},
				"Stop":        []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "true"}}}},
			}})
		files[filepath.Join(root, "hooks", "pre.sh")] = "#!/bin/sh\nexit 0\n"
		files[filepath.Join(root, "hooks", "post.sh")] = "#!/bin/sh\nexit 0\n"
		files[filepath.Join(root, ".mcp.json")] = jsonText(b, map[string]any{"mcpServers": map[string]any{
			name + "-tools": map[string]any{"command": mcpCommand[0], "args": mcpCommand[1:]}}})
	}
	files[filepath.Join(claude, "plugins", "installed_plugins.json")] = jsonText(b, map[string]any{"version": 2, "plugins": installed})
	files[filepath.Join(claude, "plugins", "known_marketplaces.json")] = jsonText(b, map[string]any{"bench-market": map[string]any{
		"source": map[string]any{"source": "directory", "path": filepath.Join(home, "market")}, "installLocation": filepath.Join(home, "market"),
		"lastUpdated": "2025-01-01T00:00:00.000Z"}})
	files[filepath.Join(claude, "settings.json")] = jsonText(b, map[string]any{"enabledPlugins": enabled})

	for i := 1; i <= setupUserAgents; i++ {
		name, dir := fmt.Sprintf("user-agent-%02d", i), filepath.Join(claude, "agents")
		if i > setupUserAgents-5 {
			dir = filepath.Join(dir, "team")
		}
		files[filepath.Join(dir, name+".md")] = agentFile(name, "inherit")
		set.agents = append(set.agents, name)
	}
	for i := 1; i <= setupProjectAgents; i++ {
		name, dir := fmt.Sprintf("project-agent-%02d", i), filepath.Join(proj, ".claude", "agents")
		if i > setupProjectAgents-3 {
			dir = filepath.Join(dir, "review")
		}
		files[filepath.Join(dir, name+".md")] = agentFile(name, "haiku")
		set.agents = append(set.agents, name)
	}
	files[filepath.Join(claude, "agents", "README.md")] = "# Our agents\n\nNot a definition: no front matter.\n"
	for i := 1; i <= setupUserSkills; i++ {
		name := fmt.Sprintf("user-skill-%02d", i)
		skillDir(files, filepath.Join(claude, "skills"), name)
		set.skills = append(set.skills, name)
	}
	for i := 1; i <= setupProjectSkills; i++ {
		name := fmt.Sprintf("project-skill-%02d", i)
		skillDir(files, filepath.Join(proj, ".claude", "skills"), name)
		set.skills = append(set.skills, name)
	}
	for i := 1; i <= setupProjectCmds; i++ {
		name := fmt.Sprintf("project-cmd-%d", i)
		files[filepath.Join(proj, ".claude", "commands", name+".md")] = commandFile(name)
		set.skills = append(set.skills, name)
	}

	set.markers = []string{"user memory marker", "project memory marker", "imported memory marker", "local memory marker"}
	files[filepath.Join(claude, "CLAUDE.md")] = "# Mine\n\n- user memory marker: answer briefly.\n"
	files[filepath.Join(proj, "CLAUDE.md")] = "# Project\n\n- project memory marker: run the tests before a commit.\n\nSee @docs/conventions.md\n"
	files[filepath.Join(proj, "docs", "conventions.md")] = "# Conventions\n\n- imported memory marker: small files.\n"
	files[filepath.Join(proj, "CLAUDE.local.md")] = "- local memory marker: my sandbox URL is local.\n"
	writeFiles(b, files)
	return set
}
