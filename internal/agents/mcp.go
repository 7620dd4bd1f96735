package agents

import (
	"encoding/json"
	"fmt"
	"strings"
)

// MCPServer is a stdio MCP server given to the program for one run (csa's
// hub, through its bridge). Each program gets it through its own
// per-invocation mechanism, never by a write to the user's configuration,
// and keeps the servers the user configured.
type MCPServer struct {
	Name    string
	Command string
	Args    []string
}

// claudeMCPConfig is Claude Code's --mcp-config value: a JSON document of
// the servers, added to the user's own (no --strict-mcp-config).
func claudeMCPConfig(servers []MCPServer) string {
	type stdio struct {
		Type    string   `json:"type"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	m := map[string]stdio{}
	for _, s := range servers {
		m[s.Name] = stdio{"stdio", s.Command, nonNil(s.Args)}
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": m})
	return string(b)
}

// claudeMCPArgs is --mcp-config JSON for the servers, nil for none. The
// option takes several values: a flag must follow it, never the prompt.
func claudeMCPArgs(servers []MCPServer) []string {
	if len(servers) == 0 {
		return nil
	}
	return []string{"--mcp-config", claudeMCPConfig(servers)}
}

// codexMCPArgs are Codex's config overrides for the servers: -c
// mcp_servers.NAME.command="..." and -c mcp_servers.NAME.args=[...], TOML
// values layered over the user's config.toml for this invocation only.
// Each is required: Codex gives a first turn only the optional servers
// ready within a second of it, and csa's hub, starting its backends on a
// busy machine, was left out of the first turn of an interactive session
// (its tool "unsupported"). A required server is waited for, up to
// codexMCPStartup.
func codexMCPArgs(servers []MCPServer) []string {
	var args []string
	for _, s := range servers {
		key := "mcp_servers." + tomlKey(s.Name)
		quoted := make([]string, len(s.Args))
		for i, a := range s.Args {
			quoted[i] = tomlString(a)
		}
		args = append(args,
			"-c", key+".command="+tomlString(s.Command),
			"-c", key+".args=["+strings.Join(quoted, ",")+"]",
			"-c", key+".required=true",
			"-c", key+".startup_timeout_sec="+codexMCPStartup)
	}
	return args
}

// codexMCPStartup bounds Codex's wait for csa's server (its default, 10 s,
// is short for a hub starting npm servers at load 20 and more).
const codexMCPStartup = "120"

// tomlKey is name as one TOML key: bare when it may be, quoted otherwise.
func tomlKey(name string) string {
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return tomlString(name)
		}
	}
	if name == "" {
		return `""`
	}
	return name
}

// OpenCode reads OPENCODE_CONFIG_CONTENT last of its configuration layers
// and deep-merges it over the user's own (global and project) config, so
// its "mcp" servers are added to the user's.
const opencodeConfigContent = "OPENCODE_CONFIG_CONTENT"

// opencodeMCPEnv is OPENCODE_CONFIG_CONTENT with the servers as local MCP
// servers, merged into the value the program would inherit, if any.
func opencodeMCPEnv(servers []MCPServer, getenv func(string) string) ([]string, error) {
	if len(servers) == 0 {
		return nil, nil
	}
	cfg := map[string]any{}
	if prev := lookup(getenv, opencodeConfigContent); prev != "" {
		if err := json.Unmarshal([]byte(prev), &cfg); err != nil {
			return nil, fmt.Errorf("cannot add MCP servers to %s, which is set but not a JSON object: %v", opencodeConfigContent, err)
		}
	}
	mcp, _ := cfg["mcp"].(map[string]any)
	if mcp == nil {
		mcp = map[string]any{}
	}
	for _, s := range servers {
		mcp[s.Name] = map[string]any{"type": "local", "command": append([]string{s.Command}, s.Args...), "enabled": true}
	}
	cfg["mcp"] = mcp
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	return []string{opencodeConfigContent + "=" + string(b)}, nil
}

// Gemini CLI has no per-invocation way to add an MCP server: its flags
// only filter the configured ones, its extensions and its user and project
// settings are the user's files, and the system settings and defaults,
// whose paths a variable can move (GEMINI_CLI_SYSTEM_SETTINGS_PATH,
// GEMINI_CLI_SYSTEM_DEFAULTS_PATH), are skipped unless the file and every
// directory above it are owned by root and writable by no one else (its
// settings loader checks, 0.61). So it is given none.

func lookup(getenv func(string) string, key string) string {
	if getenv == nil {
		return ""
	}
	return getenv(key)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// MCPNames lists the servers' names, for the session's record.
func MCPNames(servers []MCPServer) []string {
	if len(servers) == 0 {
		return nil
	}
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = s.Name
	}
	return names
}
