// Package mcp is csa-agent's MCP client: it reads the MCP servers
// configured for a session (Claude Code's files and scopes, csa-agent's
// own config, --mcp-config), connects to them in parallel, and offers
// their tools to the loop as mcp__SERVER__TOOL, keeping each server's list
// current as the server announces changes.
package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/config"
	"github.com/csa-dev/csa/internal/csaagent/plugin"
)

// Scope is where a server's definition came from. A name defined in
// several scopes takes the definition of the highest.
type Scope string

// The scopes, highest first.
const (
	ScopeEnterprise Scope = "enterprise" // the managed policy file
	ScopeDynamic    Scope = "dynamic"    // --mcp-config
	ScopeLocal      Scope = "local"      // ~/.claude.json, this project's entry
	ScopeProject    Scope = "project"    // .mcp.json
	ScopeUser       Scope = "user"       // ~/.claude.json, then csa-agent's config.toml
	ScopePlugin     Scope = "plugin"     // an enabled plugin's (plugins.go)
)

// Transports.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http"
	TypeSSE   = "sse"
)

// Server is one configured MCP server.
type Server struct {
	Name   string
	Scope  Scope
	Source string // the file (or "--mcp-config") it was read from
	Type   string // TypeStdio, TypeHTTP or TypeSSE

	Command string
	Args    []string
	Env     map[string]string
	Cwd     string

	URL     string
	Headers map[string]string

	// 0: the Manager's defaults.
	StartupTimeout, ToolTimeout time.Duration
	Disabled                    bool
	// Problem makes the server fail at start with this message (a
	// variable its entry needs is not set); the others still start.
	Problem string
}

// ManagedPath is Claude Code's managed (enterprise policy) MCP file.
const ManagedPath = "/etc/claude-code/managed-mcp.json"

// Sources says where to look for servers.
type Sources struct {
	Home        string // for ~/.claude.json ($CLAUDE_CONFIG_DIR overrides)
	Cwd         string // .mcp.json is read here and in each parent up to ProjectRoot
	ProjectRoot string // the key of the local scope in ~/.claude.json
	ManagedPath string // "" for none
	// Flags are the --mcp-config values: each a file or a JSON document.
	Flags []string
	// Strict uses only Flags (--strict-mcp-config).
	Strict bool
	// Config is csa-agent's config.toml (its [mcp_servers] and
	// disabled_mcp_servers).
	Config *config.Config
	// Disabled names servers not to start (besides those an entry
	// disables).
	Disabled []string
	Getenv   func(string) string
	// Plugins are the enabled plugins, whose servers are named
	// plugin:PLUGIN:SERVER.
	Plugins []plugin.Plugin
}

// Load reads every scope and merges them, highest scope winning for a
// name. A bad --mcp-config value is an error (the caller asked for it); a
// broken file of another scope is reported in warnings and skipped, so
// that one bad file does not cost the session its other servers.
func Load(src Sources) (servers []Server, warnings []error, err error) {
	byName := map[string]bool{}
	add := func(list []Server) {
		for _, s := range list {
			if !byName[s.Name] {
				byName[s.Name] = true
				servers = append(servers, s)
			}
		}
	}
	warn := func(list []Server, err error) []Server {
		if err != nil {
			warnings = append(warnings, err)
		}
		return list
	}
	if !src.Strict && src.ManagedPath != "" {
		add(warn(readFile(src.ManagedPath, ScopeEnterprise, src.Getenv)))
	}
	for _, f := range src.Flags {
		list, err := readFlag(f, src.Getenv)
		if err != nil {
			return nil, nil, err
		}
		add(list)
	}
	if !src.Strict {
		claude := ClaudeJSON(src.Home, src.Getenv)
		add(warn(readClaudeJSON(claude, src.ProjectRoot, ScopeLocal, src.Getenv)))
		for _, dir := range upTo(src.Cwd, src.ProjectRoot) {
			add(warn(readFile(filepath.Join(dir, ".mcp.json"), ScopeProject, src.Getenv)))
		}
		add(warn(readClaudeJSON(claude, "", ScopeUser, src.Getenv)))
		if src.Config != nil {
			add(warn(fromTOML(src.Config.MCPServers, config.Path(src.Getenv), src.Getenv)))
		}
		add(warn(fromPlugins(src.Plugins, src.ProjectRoot, src.Getenv)))
	}
	off := map[string]bool{}
	for _, n := range src.Disabled {
		off[n] = true
	}
	if src.Config != nil {
		for _, n := range src.Config.DisabledMCPServers {
			off[n] = true
		}
	}
	for i := range servers {
		if off[servers[i].Name] {
			servers[i].Disabled = true
		}
	}
	return servers, warnings, nil
}

// ClaudeJSON is Claude Code's user file ($CLAUDE_CONFIG_DIR/.claude.json or ~/.claude.json).
func ClaudeJSON(home string, getenv func(string) string) string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, ".claude.json")
	}
	return filepath.Join(home, ".claude.json")
}

// upTo lists dir and its parents up to root, closest first (the closest
// .mcp.json wins); only dir when it is not inside root.
func upTo(dir, root string) []string {
	dir, root = filepath.Clean(dir), filepath.Clean(root)
	if rel, err := filepath.Rel(root, dir); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return []string{dir}
	}
	out := []string{dir}
	for d := dir; d != root && d != filepath.Dir(d); {
		d = filepath.Dir(d)
		out = append(out, d)
	}
	return out
}

// entry is a server as Claude Code's JSON files write it.
type entry struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	// Milliseconds, as MCP_TIMEOUT and MCP_TOOL_TIMEOUT.
	Timeout     float64 `json:"timeout"`
	ToolTimeout float64 `json:"tool_timeout"`
	Disabled    bool    `json:"disabled"`
}

type document struct {
	MCPServers map[string]json.RawMessage `json:"mcpServers"`
}

func readFile(path string, scope Scope, getenv func(string) string) ([]Server, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parseDocument(data, path, scope, getenv)
}

// readFlag reads one --mcp-config value: a JSON document when it looks
// like one, else a file.
func readFlag(v string, getenv func(string) string) ([]Server, error) {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "{") {
		return parseDocument([]byte(v), "--mcp-config", ScopeDynamic, getenv)
	}
	data, err := os.ReadFile(v)
	if err != nil {
		return nil, fmt.Errorf("--mcp-config: %w", err)
	}
	return parseDocument(data, v, ScopeDynamic, getenv)
}

func parseDocument(data []byte, source string, scope Scope, getenv func(string) string) ([]Server, error) {
	var doc document
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return fromEntries(doc.MCPServers, source, scope, getenv)
}

// readClaudeJSON reads ~/.claude.json: its top-level mcpServers (project
// "") or those of projects[project].
func readClaudeJSON(path, project string, scope Scope, getenv func(string) string) ([]Server, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		document
		Projects map[string]document `json:"projects"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if project == "" {
		return fromEntries(doc.MCPServers, path, scope, getenv)
	}
	return fromEntries(doc.Projects[project].MCPServers, path, scope, getenv)
}

func fromEntries(entries map[string]json.RawMessage, source string, scope Scope, getenv func(string) string) ([]Server, error) {
	var out []Server
	var errs []error
	for _, name := range sortedKeys(entries) {
		var e entry
		if err := json.Unmarshal(entries[name], &e); err != nil {
			errs = append(errs, fmt.Errorf("%s: server %q: %w", source, name, err))
			continue
		}
		s := Server{Name: name, Scope: scope, Source: source, Type: e.Type, Command: e.Command, Args: e.Args,
			Env: e.Env, Cwd: e.Cwd, URL: e.URL, Headers: e.Headers, Disabled: e.Disabled,
			StartupTimeout: millis(e.Timeout), ToolTimeout: millis(e.ToolTimeout)}
		if err := finish(&s, getenv); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", source, err))
			continue
		}
		out = append(out, s)
	}
	return out, errors.Join(errs...)
}

func fromTOML(entries map[string]config.MCPServer, source string, getenv func(string) string) ([]Server, error) {
	var out []Server
	var errs []error
	for _, name := range sortedKeys(entries) {
		e := entries[name]
		s := Server{Name: name, Scope: ScopeUser, Source: source, Type: e.Type, Command: e.Command, Args: e.Args,
			Env: e.Env, Cwd: e.Cwd, URL: e.URL, Headers: e.Headers, Disabled: e.Disabled,
			StartupTimeout: seconds(e.StartupTimeout), ToolTimeout: seconds(e.ToolTimeout)}
		if err := finish(&s, getenv); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", source, err))
			continue
		}
		out = append(out, s)
	}
	return out, errors.Join(errs...)
}

// finish checks an entry, infers its type and expands its variables.
func finish(s *Server, getenv func(string) string) error {
	if s.Type == "" {
		s.Type = TypeStdio
		if s.Command == "" && s.URL != "" {
			s.Type = TypeHTTP
		}
	}
	switch s.Type {
	case TypeStdio:
		if s.Command == "" {
			return fmt.Errorf("server %q: a stdio server needs a command", s.Name)
		}
	case TypeHTTP, TypeSSE:
		if s.URL == "" {
			return fmt.Errorf("server %q: a %s server needs a url", s.Name, s.Type)
		}
	default:
		return fmt.Errorf("server %q: type %q is not supported (stdio, http or sse)", s.Name, s.Type)
	}
	var missing []string
	s.Command = expand(s.Command, getenv, &missing)
	s.Cwd = expand(s.Cwd, getenv, &missing)
	s.URL = expand(s.URL, getenv, &missing)
	for i, a := range s.Args {
		s.Args[i] = expand(a, getenv, &missing)
	}
	for k, v := range s.Env {
		s.Env[k] = expand(v, getenv, &missing)
	}
	for k, v := range s.Headers {
		s.Headers[k] = expand(v, getenv, &missing)
	}
	if len(missing) > 0 {
		s.Problem = fmt.Sprintf("%s: missing environment variables: %s", s.Source, strings.Join(missing, ", "))
	}
	return nil
}

func millis(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
