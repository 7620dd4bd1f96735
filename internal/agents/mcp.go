package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
			"-c", key+".args=["+strings.Join(quoted, ",")+"]")
	}
	return args
}

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

// Gemini CLI merges four settings files: system defaults, the user's, the
// project's and the system's, mcpServers shallowly (a union of servers by
// name). csa gives its servers as the system defaults, the lowest layer, in
// a file of the session's own: every server the user configured is kept,
// and one the user named alike wins. The system defaults file that would
// have been read (an administrator's) is copied into it.
const (
	geminiDefaultsEnv = "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"
	geminiSettingsEnv = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"
	geminiDefaultsDir = "/etc/gemini-cli"
	// GeminiMCPFile is the system defaults file csa writes in the session
	// directory.
	GeminiMCPFile = "gemini-system-defaults.json"
)

// geminiMCP is the environment and the file that give Gemini CLI the
// servers; dir is the session directory.
func geminiMCP(servers []MCPServer, dir string, getenv func(string) string) (env []string, files map[string][]byte, err error) {
	if len(servers) == 0 {
		return nil, nil, nil
	}
	if dir == "" {
		return nil, nil, errors.New("gemini-cli: MCP servers need the session directory")
	}
	admin := lookup(getenv, geminiDefaultsEnv)
	if admin == "" {
		settingsDir := geminiDefaultsDir
		if p := lookup(getenv, geminiSettingsEnv); p != "" {
			settingsDir = filepath.Dir(p)
		}
		admin = filepath.Join(settingsDir, "system-defaults.json")
	}
	settings := map[string]any{}
	switch b, rerr := os.ReadFile(admin); {
	case errors.Is(rerr, fs.ErrNotExist):
	case rerr != nil:
		return nil, nil, fmt.Errorf("gemini-cli: read its system defaults to add MCP servers to them: %w", rerr)
	default:
		if err := json.Unmarshal(b, &settings); err != nil {
			return nil, nil, fmt.Errorf("gemini-cli: its system defaults %s are not plain JSON, so csa cannot add its MCP server to them (use --no-mcp): %v", admin, err)
		}
	}
	mcp, _ := settings["mcpServers"].(map[string]any)
	if mcp == nil {
		mcp = map[string]any{}
	}
	for _, s := range servers {
		mcp[s.Name] = map[string]any{"command": s.Command, "args": nonNil(s.Args)}
	}
	settings["mcpServers"] = mcp
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	path := filepath.Join(dir, GeminiMCPFile)
	return []string{geminiDefaultsEnv + "=" + path}, map[string][]byte{path: b}, nil
}

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
