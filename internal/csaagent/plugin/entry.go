package plugin

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// entry is a plugin's entry in its marketplace's
// .claude-plugin/marketplace.json. Claude Code reads its components
// beside the plugin's own manifest: added to the manifest's (strict, the
// default), or as the only manifest (strict false; both giving
// components is a conflict and the plugin is not loaded).
type entry struct {
	Manifest
	Source json.RawMessage `json:"source"`
	Strict *bool           `json:"strict"`
}

// components tells whether the entry names any component.
func (e entry) components() bool {
	return given(e.Commands) || given(e.Agents) || given(e.Skills) || given(e.OutputStyles) || given(e.Hooks)
}

// atRoot tells a source that is the marketplace's own folder ("./"):
// such plugins share the folder, so a skills list in the entry is all
// their skills, not an addition to skills/.
func (e entry) atRoot() bool {
	var s string
	if json.Unmarshal(e.Source, &s) != nil {
		return false
	}
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part != "." {
			return false
		}
	}
	return true
}

// marketplaceEntry finds id's entry ("name@marketplace") through
// known_marketplaces.json; a plugin whose marketplace or entry is gone
// has none.
func marketplaceEntry(home, id string) (entry, bool, error) {
	name, market, ok := strings.Cut(id, "@")
	if !ok || home == "" {
		return entry{}, false, nil
	}
	var known map[string]struct {
		InstallLocation string `json:"installLocation"`
	}
	if err := readJSON(filepath.Join(home, ".claude", "plugins", "known_marketplaces.json"), &known); err != nil {
		return entry{}, false, fmt.Errorf("plugins: %w", err)
	}
	loc := known[market].InstallLocation
	if loc == "" {
		return entry{}, false, nil
	}
	var m struct {
		Plugins []json.RawMessage `json:"plugins"`
	}
	if err := readJSON(filepath.Join(loc, ".claude-plugin", "marketplace.json"), &m); err != nil {
		return entry{}, false, fmt.Errorf("plugins: %w", err)
	}
	for _, raw := range m.Plugins {
		var e entry
		if json.Unmarshal(raw, &e) == nil && e.Name == name {
			return e, true, nil
		}
	}
	return entry{}, false, nil
}

// withEntry applies a plugin's marketplace entry as Claude Code applies
// it; hasManifest tells whether the plugin has a plugin.json.
func (p Plugin) withEntry(e entry, hasManifest bool) (Plugin, error) {
	if hasManifest && e.Strict != nil && !*e.Strict && e.components() {
		return p, fmt.Errorf("plugin %s: both its plugin.json and its marketplace entry (strict: false) name components: not loaded (set strict: true in the entry or remove the components from one of them)", p.ID)
	}
	p.Entry = e.Manifest
	if !hasManifest {
		p.Manifest.MCPServers = e.MCPServers
		if e.Name != "" {
			p.Name = e.Name
		}
	}
	if e.atRoot() && given(e.Skills) {
		rel, _, _ := entries(e.Skills)
		p.listedSkillsOnly = true
		for _, r := range rel {
			if full, err := p.inside(r); err == nil && (full == filepath.Clean(p.Root) || full == p.Dir("skills")) {
				p.listedSkillsOnly = false
			}
		}
	}
	return p, nil
}
