// Package plugin finds the Claude Code plugins csa-agent loads, in Claude
// Code's own files so the two programs share one installation: the
// registry ~/.claude/plugins/installed_plugins.json, enabledPlugins in the
// settings scopes, and --plugin-dir folders. Each feature package
// (skills, subagent, hooks, mcp, output styles) reads its part of a
// plugin's folder through the Plugin this package gives it.
package plugin

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Plugin is one enabled plugin.
type Plugin struct {
	// ID is "name@marketplace" ("name@inline" for a --plugin-dir one).
	ID string
	// Name is the part of ID before the @: its commands, skills and
	// agents are named "Name:thing".
	Name string
	// Root is its folder (the installPath), ${CLAUDE_PLUGIN_ROOT}.
	Root string
	// Manifest is its .claude-plugin/plugin.json (zero without one).
	Manifest Manifest
	// Entry holds the components its marketplace entry adds to the
	// manifest's.
	Entry Manifest
	// listedSkillsOnly: the entry lists its skills and the plugin is the
	// marketplace's own folder, so skills/ is not read whole.
	listedSkillsOnly bool
	// Data is its persistent folder, ${CLAUDE_PLUGIN_DATA}:
	// ~/.claude/plugins/data/ID with every character outside
	// [A-Za-z0-9_-] a "-", as Claude Code names it ("" without a home).
	Data string
}

// DataDir is Data, created as Claude Code creates it when a hook or a
// server is given it.
func (p Plugin) DataDir() string {
	if p.Data != "" {
		_ = os.MkdirAll(p.Data, 0o755) // a failure shows when the hook writes there
	}
	return p.Data
}

// Expand substitutes ${CLAUDE_PLUGIN_ROOT}, ${CLAUDE_PROJECT_DIR} and
// ${CLAUDE_PLUGIN_DATA} in s, as Claude Code does in a plugin's hook
// commands, MCP server entries and agent prompts.
func (p Plugin) Expand(s, projectDir string) string {
	if !strings.Contains(s, "${CLAUDE_") {
		return s
	}
	s = strings.ReplaceAll(s, "${CLAUDE_PLUGIN_ROOT}", p.Root)
	s = strings.ReplaceAll(s, "${CLAUDE_PROJECT_DIR}", projectDir)
	if strings.Contains(s, "${CLAUDE_PLUGIN_DATA}") {
		s = strings.ReplaceAll(s, "${CLAUDE_PLUGIN_DATA}", p.DataDir())
	}
	return s
}

// Env is what Claude Code adds to the environment of a plugin's hooks and
// stdio MCP servers.
func (p Plugin) Env() []string {
	env := []string{"CLAUDE_PLUGIN_ROOT=" + p.Root}
	if d := p.DataDir(); d != "" {
		env = append(env, "CLAUDE_PLUGIN_DATA="+d)
	}
	return env
}

var notDataChar = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// dataDir is where the plugin id's data lives below home.
func dataDir(home, id string) string {
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".claude", "plugins", "data", notDataChar.ReplaceAllString(id, "-"))
}

// Dir is the folder of one of its components ("commands", "skills",
// "agents", "hooks", "output-styles").
func (p Plugin) Dir(component string) string {
	return filepath.Join(p.Root, component)
}

// Sources are where Enabled looks: the user's home, the project root and
// folders given with --plugin-dir. Any may be empty.
type Sources struct {
	Home, ProjectRoot string
	Dirs              []string
}
