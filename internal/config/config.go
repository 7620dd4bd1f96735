// Package config loads csa's configuration: an optional global file
// (GlobalPath) and an optional project file (ProjectPath), merged over
// built-in defaults and validated, with errors that name the file, line,
// column and dotted key at fault.
//
// The typed Config struct is the schema: its toml tags are the keys a file
// may hold. To add a setting, add a field with a toml tag, give it a default
// in Default, a rule in validate if it needs one, and a line in Template.
package config

import (
	"maps"
	"reflect"
	"strings"
	"time"
)

// Config is the effective configuration.
type Config struct {
	// MaxRecursionDepth is the deepest nesting of csa runs started by
	// agents (CSA_DEPTH), 0 to 100.
	MaxRecursionDepth int          `toml:"max_recursion_depth"`
	Defaults          Defaults     `toml:"defaults"`
	Tools             ToolsConfig  `toml:"tools"`
	GC                GCConfig     `toml:"gc"`
	Output            OutputConfig `toml:"output"`
}

// Defaults holds the defaults of `csa run`.
type Defaults struct {
	// Tool is used when no --tool is given; "" means none.
	Tool string `toml:"tool"`
	// Timeout limits a run's total time; zero means no limit.
	Timeout Duration `toml:"timeout"`
	// IdleTimeout limits the time a run may go without output; zero means
	// no limit.
	IdleTimeout Duration `toml:"idle_timeout"`
	// KillGrace is the time between SIGTERM and SIGKILL.
	KillGrace Duration `toml:"kill_grace"`
}

// ToolsConfig holds one table per supported tool; see Tools.
type ToolsConfig struct {
	ClaudeCode ToolConfig `toml:"claude-code"`
	Codex      ToolConfig `toml:"codex"`
	GeminiCLI  ToolConfig `toml:"gemini-cli"`
	Opencode   ToolConfig `toml:"opencode"`
}

// ToolConfig configures one tool.
type ToolConfig struct {
	// Path is the program to run: a name looked up on PATH, or a path.
	// It defaults to the tool's program name.
	Path string `toml:"path"`
	// Enabled says whether csa may run the tool.
	Enabled bool `toml:"enabled"`
	// Model is the model to ask for; "" means the tool's own default.
	Model string `toml:"model"`
	// Effort is the thinking or reasoning effort; "" for the tool's own.
	Effort string `toml:"effort"`
	// Yolo lets the agent act without asking for approval, as a headless
	// sub-agent must.
	Yolo bool `toml:"yolo"`
	// Env holds extra environment variables for the program.
	Env map[string]string `toml:"env"`
}

// GCConfig configures `csa gc`.
type GCConfig struct {
	// MaxAgeDays is the age in days after which sessions are removed.
	MaxAgeDays int `toml:"max_age_days"`
}

// OutputConfig configures how run output is recorded.
type OutputConfig struct {
	// MaxLogBytes caps the recorded output log of one session.
	MaxLogBytes int64 `toml:"max_log_bytes"`
}

// Default returns the configuration that applies when no file sets anything.
func Default() Config {
	c := Config{
		MaxRecursionDepth: 5,
		Defaults:          Defaults{KillGrace: Duration(5 * time.Second)},
		GC:                GCConfig{MaxAgeDays: 30},
		Output:            OutputConfig{MaxLogBytes: 1 << 30},
	}
	for _, t := range Tools() {
		*c.Tools.get(t.Name) = ToolConfig{Path: t.Program, Enabled: true, Yolo: true}
	}
	return c
}

// Tool returns the configuration of the tool called name, with defaults
// filled in: an empty Path becomes the tool's program name. The Env map is
// the caller's own. An unknown name gives the zero ToolConfig, which is
// not Enabled.
func (c *Config) Tool(name string) ToolConfig {
	p := c.Tools.get(name)
	info, ok := LookupTool(name)
	if p == nil || !ok {
		return ToolConfig{}
	}
	t := *p
	if t.Path == "" {
		t.Path = info.Program
	}
	t.Env = maps.Clone(t.Env)
	return t
}

// get returns the table of the tool called name, or nil.
func (t *ToolsConfig) get(name string) *ToolConfig {
	switch name {
	case ToolClaudeCode:
		return &t.ClaudeCode
	case ToolCodex:
		return &t.Codex
	case ToolGeminiCLI:
		return &t.GeminiCLI
	case ToolOpencode:
		return &t.Opencode
	}
	return nil
}

// tagName returns the key of field f: its toml tag without options; "" for
// fields that are not part of the configuration.
func tagName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	if name == "-" {
		return ""
	}
	return name
}
