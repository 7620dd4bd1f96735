package plugin

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A plugin's Entry in its marketplace: Claude Code reads its components
// beside the plugin's own manifest: added to the manifest's (strict, the
// default), or as the only manifest (strict false; both giving
// components is a conflict and the plugin is not loaded).

// components tells whether the entry names any component.
func (e Entry) components() bool {
	return given(e.Commands) || given(e.Agents) || given(e.Skills) || given(e.OutputStyles) || given(e.Hooks)
}

// atRoot tells a source that is the marketplace's own folder ("./"):
// such plugins share the folder, so a skills list in the entry is all
// their skills, not an addition to skills/.
func (e Entry) atRoot() bool {
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
func marketplaceEntry(home, id string) (Entry, Marketplace, bool, error) {
	name, market, ok := strings.Cut(id, "@")
	if !ok || home == "" {
		return Entry{}, Marketplace{}, false, nil
	}
	known, err := Layout{Home: home}.Marketplaces()
	if err != nil {
		return Entry{}, Marketplace{}, false, fmt.Errorf("plugins: %w", err)
	}
	for _, m := range known {
		if m.Name != market || m.InstallLocation == "" {
			continue
		}
		cat, err := readCatalog(m.InstallLocation)
		if err != nil {
			return Entry{}, Marketplace{}, false, fmt.Errorf("plugins: %w", err)
		}
		for _, e := range cat.Plugins {
			if e.Name == name {
				return e, m, true, nil
			}
		}
	}
	return Entry{}, Marketplace{}, false, nil
}

// inPlace is the folder a plugin of a local marketplace (a directory or
// a marketplace.json file) is loaded from: Claude Code reads such a
// plugin where the marketplace has it, not from its copy in the cache,
// so an edit there shows at once. "" for others.
func inPlace(e Entry, m Marketplace) string {
	var rel string
	if (m.Source.Source != "directory" && m.Source.Source != "file") || json.Unmarshal(e.Source, &rel) != nil {
		return ""
	}
	dir := m.InstallLocation
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		dir = filepath.Dir(dir)
	}
	return filepath.Join(dir, rel)
}

// withEntry applies a plugin's marketplace entry as Claude Code applies
// it; hasManifest tells whether the plugin has a plugin.json.
func (p Plugin) withEntry(e Entry, hasManifest bool) (Plugin, error) {
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
