// Package plugin finds the Claude Code plugins csa-agent loads, in Claude
// Code's own files so the two programs share one installation: the
// registry ~/.claude/plugins/installed_plugins.json, enabledPlugins in the
// settings scopes, and --plugin-dir folders. Each feature package
// (skills, subagent, hooks, mcp, output styles) reads its part of a
// plugin's folder through the Plugin this package gives it.
package plugin

import (
	"path/filepath"
)

// Plugin is one enabled plugin.
type Plugin struct {
	// ID is "name@marketplace" ("name" for a --plugin-dir one).
	ID string
	// Name is the part of ID before the @: its commands, skills and
	// agents are named "Name:thing".
	Name string
	// Root is its folder (the installPath), ${CLAUDE_PLUGIN_ROOT}.
	Root string
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
