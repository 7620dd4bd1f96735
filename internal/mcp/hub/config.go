package hub

import (
	"bytes"
	"fmt"
	"os"

	"github.com/pelletier/go-toml/v2"

	"github.com/csa-dev/csa/internal/config"
)

// Config is the hub's configuration: the MCP servers it fans out to.
type Config struct {
	Servers map[string]ServerConfig `toml:"servers"`
}

// ServerConfig is one backend MCP server: csa's [mcp.servers.NAME].
type ServerConfig = config.MCPServer

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
		if err := s.Check(); err != nil {
			return nil, fmt.Errorf("servers.%s: %w", name, err)
		}
	}
	return &c, nil
}
