package mcphub

import (
	"bytes"
	"fmt"
	"os"
	"path"

	"github.com/pelletier/go-toml/v2"
)

// Config is the hub's configuration: the MCP servers it fans out to.
type Config struct {
	Servers map[string]ServerConfig `toml:"servers"`
}

// ServerConfig is one backend MCP server, started as a stdio command.
type ServerConfig struct {
	Command string            `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
	Cwd     string            `toml:"cwd"`
	// Scope is "shared" (one process for every client, the default) or
	// "project" (one per project root a client announces: for stateful
	// servers).
	Scope string `toml:"scope"`
	// Concurrency bounds the calls in flight to this backend; 0 is
	// unbounded. Further calls wait first-in first-out, at most Queue of
	// them (default 256).
	Concurrency int `toml:"concurrency"`
	Queue       int `toml:"queue"`
	Tools       struct {
		// Allow and Deny are tool-name patterns (path.Match); Deny wins.
		Allow []string `toml:"allow"`
		Deny  []string `toml:"deny"`
	} `toml:"tools"`
}

const defaultQueue = 256

// LoadConfig reads a TOML config file.
func LoadConfig(file string) (*Config, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	c, err := ParseConfig(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return c, nil
}

// ParseConfig decodes and checks a config; unknown keys are errors, as a
// misspelt key silently ignored would be a server silently misconfigured.
func ParseConfig(b []byte) (*Config, error) {
	var c Config
	dec := toml.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, err
	}
	for name, s := range c.Servers {
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("servers.%s: %w", name, err)
		}
	}
	return &c, nil
}

func (s ServerConfig) check() error {
	switch {
	case s.Command == "":
		return fmt.Errorf("command is required")
	case s.Scope != "" && s.Scope != "shared" && s.Scope != "project":
		return fmt.Errorf("scope %q: want shared or project", s.Scope)
	case s.Concurrency < 0 || s.Queue < 0:
		return fmt.Errorf("concurrency and queue must not be negative")
	}
	for _, p := range append(append([]string{}, s.Tools.Allow...), s.Tools.Deny...) {
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("tool pattern %q: %w", p, err)
		}
	}
	return nil
}

func (s ServerConfig) queueMax() int {
	if s.Queue == 0 {
		return defaultQueue
	}
	return s.Queue
}

// exposes reports whether the tool passes allow and deny.
func (s ServerConfig) exposes(tool string) bool {
	for _, p := range s.Tools.Deny {
		if ok, _ := path.Match(p, tool); ok {
			return false
		}
	}
	if len(s.Tools.Allow) == 0 {
		return true
	}
	for _, p := range s.Tools.Allow {
		if ok, _ := path.Match(p, tool); ok {
			return true
		}
	}
	return false
}
