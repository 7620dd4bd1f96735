// Package config reads csa-agent's configuration file: the default model,
// providers beyond the built-in ones, model aliases, permission rules, and
// per-model context windows for compaction.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/csa-dev/csa/internal/csaagent/hooks"
	"github.com/csa-dev/csa/internal/csaenv"
)

// Config is config.toml.
type Config struct {
	Model          string   `toml:"model"`
	FallbackModel  string   `toml:"fallback_model"`
	Effort         string   `toml:"effort"`
	PermissionMode string   `toml:"permission_mode"`
	Allow          []string `toml:"allow"`
	Deny           []string `toml:"deny"`
	AddDirs        []string `toml:"add_dirs"`
	MaxTurns       int      `toml:"max_turns"`
	TokenBudget    int64    `toml:"token_budget"`

	// Timeouts of one model request, in seconds.
	RequestTimeout float64 `toml:"request_timeout"`
	StallTimeout   float64 `toml:"stall_timeout"`
	MaxRetries     int     `toml:"max_retries"`

	// Hooks are Claude Code's hooks in TOML ([[hooks.PreToolUse]] ...),
	// run beside those of Claude Code's settings files.
	Hooks hooks.Settings `toml:"hooks"`

	Providers map[string]Provider `toml:"providers"`
	Models    map[string]Model    `toml:"models"`

	// ModelAliases is [model_aliases] as written: alias = "provider/model"
	// for any provider, and [model_aliases.PROVIDER] tables of alias =
	// "model" for one; Aliases is it checked.
	ModelAliases map[string]any `toml:"model_aliases"`
	Aliases      Aliases        `toml:"-" json:"-"`

	// MCP servers of the user scope, beside ~/.claude.json's, and the
	// names of servers of any scope not to start.
	MCPServers         map[string]MCPServer `toml:"mcp_servers"`
	DisabledMCPServers []string             `toml:"disabled_mcp_servers"`
}

// MCPServer is an [mcp_servers.NAME] table: a stdio server (command) or an
// HTTP one (url; type = "sse" for the legacy transport).
type MCPServer struct {
	Type    string            `toml:"type"` // stdio, http or sse; inferred when empty
	Command string            `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
	Cwd     string            `toml:"cwd"`
	URL     string            `toml:"url"`
	Headers map[string]string `toml:"headers"`
	// Seconds, as the other timeouts of this file.
	StartupTimeout float64 `toml:"startup_timeout"`
	ToolTimeout    float64 `toml:"tool_timeout"`
	Disabled       bool    `toml:"disabled"`
}

// Provider is a provider entry: a new one (a local server speaking an API)
// or overrides of a built-in one.
type Provider struct {
	API       string            `toml:"api"` // anthropic, responses, chat, gemini
	BaseURL   string            `toml:"base_url"`
	APIKeyEnv string            `toml:"api_key_env"`
	APIKey    string            `toml:"api_key"`
	Headers   map[string]string `toml:"headers"`
}

// Model holds per-model settings, keyed by "provider/model" or the bare
// model name.
type Model struct {
	ContextWindow int64   `toml:"context_window"`
	CompactAt     float64 `toml:"compact_at"` // fraction of the window; default 0.8
}

// Aliases are Claude Code's model names (sonnet, opus, haiku, or any
// other) mapped to models, keys in lower case as they are matched.
type Aliases struct {
	Any      map[string]string            // alias = "provider/model"
	Provider map[string]map[string]string // [PROVIDER] alias = "model"
}

// aliases checks [model_aliases]: string values, or tables of them.
func (c *Config) aliases() error {
	a := Aliases{Any: map[string]string{}, Provider: map[string]map[string]string{}}
	for k, v := range c.ModelAliases {
		switch v := v.(type) {
		case string:
			a.Any[strings.ToLower(k)] = v
		case map[string]any:
			table := map[string]string{}
			for alias, m := range v {
				s, ok := m.(string)
				if !ok {
					return fmt.Errorf("model_aliases.%s.%s: want a model name, not %T", k, alias, m)
				}
				table[strings.ToLower(alias)] = s
			}
			a.Provider[k] = table
		default:
			return fmt.Errorf("model_aliases.%s: want a model spec or a table of a provider's aliases, not %T", k, v)
		}
	}
	c.Aliases = a
	return nil
}

// Path is the config file: $CSA_AGENT_CONFIG, else
// $XDG_CONFIG_HOME/csa-agent/config.toml (~/.config when unset).
func Path(getenv func(string) string) string {
	if p := getenv(csaenv.AgentConfig); p != "" {
		return p
	}
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		dir = filepath.Join(getenv("HOME"), ".config")
	}
	return filepath.Join(dir, "csa-agent", "config.toml")
}

// Load reads path; a missing file is an empty config.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Config{}, nil
	}
	if err != nil {
		return nil, err
	}
	var c Config
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		var strict *toml.StrictMissingError
		if errors.As(err, &strict) {
			return nil, fmt.Errorf("%s: unknown keys:\n%s", path, strict.String())
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := c.aliases(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &c, nil
}

// ModelSettings finds the settings of spec ("provider/model"), then of the
// bare model name.
func (c *Config) ModelSettings(spec, model string) Model {
	if m, ok := c.Models[spec]; ok {
		return m
	}
	return c.Models[model]
}
