package config

import (
	"sort"

	"github.com/csa-dev/csa/internal/agents"
)

// knownTool reports whether name is one of the registry's tools.
func knownTool(name string) bool {
	_, ok := agents.Lookup(name)
	return ok
}

// toolNames lists the registry's tool names, for messages.
func toolNames() string { return agents.Names() }

// toolKeys returns the tool tables present, in the registry's order first,
// then any unknown ones sorted (for validation).
func (t ToolsConfig) toolKeys() []string {
	var out, unknown []string
	for _, s := range agents.Registry {
		if _, ok := t[string(s.Tool)]; ok {
			out = append(out, string(s.Tool))
		}
	}
	for k := range t {
		if !knownTool(k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	return append(out, unknown...)
}
