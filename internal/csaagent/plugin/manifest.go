package plugin

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ManifestPath is where a plugin's manifest is, below its root.
const ManifestPath = ".claude-plugin/plugin.json"

// Manifest is the part of .claude-plugin/plugin.json csa-agent reads. The
// component fields are Claude Code's: a path or a list of paths relative
// to the plugin's root ("commands" may also map names to {source, ...};
// "hooks" and "mcpServers" may also be written inline as objects).
type Manifest struct {
	Name         string          `json:"name"`
	Commands     json.RawMessage `json:"commands"`
	Agents       json.RawMessage `json:"agents"`
	Skills       json.RawMessage `json:"skills"`
	OutputStyles json.RawMessage `json:"outputStyles"`
	Hooks        json.RawMessage `json:"hooks"`
	MCPServers   json.RawMessage `json:"mcpServers"`
}

// readManifest reads root's manifest; a plugin without one has none.
func readManifest(root string) (Manifest, error) {
	m, _, err := readManifestOf(root)
	return m, err
}

// readManifestOf is readManifest telling whether there is one.
func readManifestOf(root string) (Manifest, bool, error) {
	var m Manifest
	path := filepath.Join(root, ManifestPath)
	err := readJSON(path, &m)
	return m, isFile(path), err
}

// given tells whether a manifest field is set (Claude Code's test is
// truthiness: null, "" and false are unset).
func given(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s != "" && s != "null" && s != `""` && s != "false"
}

// entries splits a component field into its paths and its inline objects:
// a string, or a list of strings and objects.
func entries(raw json.RawMessage) (paths []string, objects []json.RawMessage, err error) {
	if !given(raw) {
		return nil, nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil, nil
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil, []json.RawMessage{raw}, nil // an object
	}
	for _, item := range list {
		if json.Unmarshal(item, &one) == nil {
			paths = append(paths, one)
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(string(item)), "{") {
			objects = append(objects, item)
			continue
		}
		err = fmt.Errorf("unexpected entry %s", item)
	}
	return paths, objects, err
}

// inside resolves rel against the plugin's root; a path that leaves the
// root is refused, as Claude Code refuses it.
func (p Plugin) inside(rel string) (string, error) {
	root := filepath.Clean(p.Root)
	full := filepath.Join(root, rel)
	if filepath.IsAbs(rel) {
		full = filepath.Clean(rel)
	}
	r, err := filepath.Rel(root, full)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("plugin %s: %s leaves the plugin's folder", p.Name, rel)
	}
	return full, nil
}

// existing resolves the paths of a component field, leaving out (and
// reporting) those that leave the root or do not exist.
func (p Plugin) existing(field string, paths []string) ([]string, []error) {
	var out []string
	var errs []error
	for _, rel := range paths {
		full, err := p.inside(rel)
		if err == nil {
			_, err = os.Stat(full)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("plugin %s: manifest %s: %w", p.Name, field, err))
			continue
		}
		out = append(out, full)
	}
	return out, errs
}
