package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// install is one installation of a plugin in installed_plugins.json.
type install struct {
	InstallPath string `json:"installPath"`
	Scope       string `json:"scope"`       // user, project or local; absent in version 1
	ProjectPath string `json:"projectPath"` // for project and local
}

// Enabled finds the plugins Claude Code would load: those listed in
// ~/.claude/plugins/installed_plugins.json (version 1: one installation
// an id; version 2: a list, each user-wide or for one project) whose id is
// true in enabledPlugins of ~/.claude/settings.json, the project's
// .claude/settings.json or .claude/settings.local.json (the later file
// wins), then the --plugin-dir folders, each with its manifest (whose
// name, when given, names the plugin). The error joins every file that could not be
// read; the plugins returned are the good ones.
func Enabled(src Sources) ([]Plugin, error) {
	out, err := installed(src.Home, src.ProjectRoot)
	errs := []error{err}
	kept := out[:0]
	for _, p := range out {
		e, market, found, err := marketplaceEntry(src.Home, p.ID)
		errs = append(errs, err)
		if dir := inPlace(e, market); found && dir != "" {
			if !isDir(dir) {
				errs = append(errs, fmt.Errorf("plugins: %s: its folder %s in marketplace %s is gone", p.ID, dir, market.Name))
				continue
			}
			p.Root = dir
		}
		m, has, err := readManifestOf(p.Root)
		errs = append(errs, err)
		p.Manifest = m
		if m.Name != "" {
			p.Name = m.Name
		}
		if found {
			if p, err = p.withEntry(e, has); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		kept = append(kept, p)
	}
	out = kept
	for _, dir := range src.Dirs {
		p, err := fromDir(dir)
		errs = append(errs, err)
		out = append(out, p)
	}
	for i := range out {
		out[i].Data = dataDir(src.Home, out[i].ID)
	}
	return out, errors.Join(errs...)
}

func installed(home, projectRoot string) ([]Plugin, error) {
	if home == "" {
		return nil, nil
	}
	var errs []error
	enabled := map[string]bool{}
	settings := []string{filepath.Join(home, ".claude", "settings.json")}
	if projectRoot != "" {
		settings = append(settings, filepath.Join(projectRoot, ".claude", "settings.json"),
			filepath.Join(projectRoot, ".claude", "settings.local.json"))
	}
	for _, path := range settings {
		var f struct {
			EnabledPlugins map[string]bool `json:"enabledPlugins"`
		}
		if err := readJSON(path, &f); err != nil {
			errs = append(errs, fmt.Errorf("plugins: %w", err))
			continue
		}
		for id, on := range f.EnabledPlugins {
			enabled[id] = on
		}
	}
	registry := filepath.Join(home, ".claude", "plugins", "installed_plugins.json")
	var installed struct {
		Plugins map[string]json.RawMessage `json:"plugins"`
	}
	if err := readJSON(registry, &installed); err != nil {
		return nil, errors.Join(append(errs, fmt.Errorf("plugins: %w", err))...)
	}
	ids := make([]string, 0, len(enabled))
	for id, on := range enabled {
		if on {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	var out []Plugin
	for _, id := range ids {
		raw, ok := installed.Plugins[id]
		if !ok {
			errs = append(errs, fmt.Errorf("plugins: %s is enabled but not in %s (install it with `csa-agent plugin install` or Claude Code)", id, registry))
			continue
		}
		var list []install
		if json.Unmarshal(raw, &list) != nil {
			var one install
			if err := json.Unmarshal(raw, &one); err != nil {
				errs = append(errs, fmt.Errorf("plugins: %s: entry %s: %w", registry, id, err))
				continue
			}
			list = []install{one}
		}
		name, _, _ := strings.Cut(id, "@")
		for _, in := range list {
			if in.InstallPath != "" && (in.Scope == "" || in.Scope == "user" || samePath(in.ProjectPath, projectRoot)) {
				out = append(out, Plugin{ID: id, Name: name, Root: in.InstallPath})
				break
			}
		}
	}
	return out, errors.Join(errs...)
}

// readJSON reads a JSON file into v; a missing file leaves v as it is.
func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func samePath(a, b string) bool {
	return a != "" && b != "" && filepath.Clean(a) == filepath.Clean(b)
}

// fromDir is a plugin given by its folder: named by its manifest's name,
// else by the folder; its id is Claude Code's "NAME@inline".
func fromDir(dir string) (Plugin, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	m, err := readManifest(abs)
	name := m.Name
	if name == "" {
		name = filepath.Base(abs)
	}
	return Plugin{ID: name + "@inline", Name: name, Root: abs, Manifest: m}, err
}
