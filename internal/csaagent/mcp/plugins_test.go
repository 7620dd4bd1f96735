package mcp

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/plugin"
)

// A plugin's servers are plugin:PLUGIN:SERVER, their tools
// mcp__plugin_PLUGIN_SERVER__TOOL; ${CLAUDE_PLUGIN_ROOT} is substituted
// and given to a stdio server; --strict-mcp-config leaves them out.
func TestPluginServers(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	root := filepath.Join(t.TempDir(), "kit")
	writeJSON(t, filepath.Join(root, ".claude-plugin/plugin.json"), `{"name": "kit", "mcpServers": {"web": {"type": "http", "url": "${BASE}/mcp"}}}`)
	writeJSON(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {"tools": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/server",
		"args": ["--data", "${CLAUDE_PLUGIN_DATA}", "${CLAUDE_PROJECT_DIR}"], "env": {"MODE": "${MODE:-fast}"}}}}`)
	plugins, err := plugin.Enabled(plugin.Sources{Home: home, Dirs: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	getenv := env(map[string]string{"BASE": "http://h"})
	servers, warnings, err := Load(Sources{Home: home, Cwd: proj, ProjectRoot: proj, Plugins: plugins, Getenv: getenv})
	if err != nil || len(warnings) > 0 || len(servers) != 2 {
		t.Fatalf("servers %+v, warnings %v, err %v", servers, warnings, err)
	}
	data := filepath.Join(home, ".claude/plugins/data/kit-inline")
	tools := servers[0]
	if tools.Name != "plugin:kit:tools" || tools.Scope != ScopePlugin || tools.Command != root+"/bin/server" ||
		!reflect.DeepEqual(tools.Args, []string{"--data", data, proj}) ||
		!reflect.DeepEqual(tools.Env, map[string]string{"CLAUDE_PLUGIN_ROOT": root, "CLAUDE_PLUGIN_DATA": data, "MODE": "fast"}) {
		t.Errorf("tools %+v", tools)
	}
	if web := servers[1]; web.Name != "plugin:kit:web" || web.URL != "http://h/mcp" || web.Env != nil {
		t.Errorf("web %+v", web)
	}
	if got := ToolName(tools.Name, "echo"); got != "mcp__plugin_kit_tools__echo" {
		t.Errorf("tool name %q", got)
	}
	servers, _, _ = Load(Sources{Home: home, Cwd: proj, ProjectRoot: proj, Plugins: plugins, Getenv: getenv, Strict: true})
	if len(servers) != 0 {
		t.Errorf("strict: %+v", servers)
	}
}
