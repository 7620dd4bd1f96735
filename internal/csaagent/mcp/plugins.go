package mcp

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/csa-dev/csa/internal/csaagent/plugin"
)

// fromPlugins reads the MCP servers of plugins (.mcp.json at a plugin's
// root, then its manifest's mcpServers) as Claude Code does: named
// plugin:PLUGIN:SERVER (so the model sees mcp__plugin_PLUGIN_SERVER__TOOL),
// ${CLAUDE_PLUGIN_ROOT}, ${CLAUDE_PLUGIN_DATA} and ${CLAUDE_PROJECT_DIR}
// substituted before the environment's variables, and a stdio server's
// environment given CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA (its entry's
// env wins).
func fromPlugins(plugins []plugin.Plugin, projectDir string, getenv func(string) string) ([]Server, error) {
	var out []Server
	var errs []error
	for _, p := range plugins {
		entries, where, err := p.MCPServers()
		errs = append(errs, err)
		for _, name := range sortedKeys(entries) {
			var e entry
			if err := json.Unmarshal(entries[name], &e); err != nil {
				errs = append(errs, fmt.Errorf("%s: server %q: %w", where[name], name, err))
				continue
			}
			s := Server{Name: "plugin:" + p.Name + ":" + name, Scope: ScopePlugin, Source: where[name], Type: e.Type,
				Command: p.Expand(e.Command, projectDir), Cwd: p.Expand(e.Cwd, projectDir), URL: p.Expand(e.URL, projectDir),
				Disabled: e.Disabled, StartupTimeout: millis(e.Timeout), ToolTimeout: millis(e.ToolTimeout)}
			for _, a := range e.Args {
				s.Args = append(s.Args, p.Expand(a, projectDir))
			}
			s.Headers = expandAll(p, e.Headers, projectDir)
			if s.Type == "" || s.Type == TypeStdio {
				s.Env = map[string]string{"CLAUDE_PLUGIN_ROOT": p.Root}
				if d := p.DataDir(); d != "" {
					s.Env["CLAUDE_PLUGIN_DATA"] = d
				}
			}
			for k, v := range expandAll(p, e.Env, projectDir) {
				if s.Env == nil {
					s.Env = map[string]string{}
				}
				s.Env[k] = v
			}
			if err := finish(&s, getenv); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", where[name], err))
				continue
			}
			out = append(out, s)
		}
	}
	return out, errors.Join(errs...)
}

func expandAll(p plugin.Plugin, m map[string]string, projectDir string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = p.Expand(v, projectDir)
	}
	return out
}
