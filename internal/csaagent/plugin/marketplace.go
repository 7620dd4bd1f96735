package plugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Marketplace is one entry of known_marketplaces.json.
type Marketplace struct {
	Name            string `json:"-"`
	Source          Source `json:"source"`
	InstallLocation string `json:"installLocation"`
	LastUpdated     string `json:"lastUpdated"`
}

// Catalog is a marketplace's .claude-plugin/marketplace.json, the parts
// csa-agent reads.
type Catalog struct {
	Name    string  `json:"name"`
	Plugins []Entry `json:"plugins"`
}

// Entry is one plugin a marketplace lists: its name and the components
// it adds to the plugin's manifest (entry.go), where it is and how
// strictly its manifest rules.
type Entry struct {
	Manifest
	// Source is a path relative to the marketplace ("./plugins/x"), or an
	// object (github, url, git-subdir, npm) csa-agent does not install.
	Source  json.RawMessage `json:"source"`
	Version string          `json:"version"`
	// Strict false: the entry is the plugin's only manifest.
	Strict *bool `json:"strict"`
}

var marketplaceName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// manifestPath is the marketplace.json of a marketplace at loc: loc
// itself for a file source, else in its .claude-plugin folder.
func manifestPath(loc string) string {
	if strings.HasSuffix(loc, ".json") {
		if fi, err := os.Stat(loc); err == nil && !fi.IsDir() {
			return loc
		}
	}
	return filepath.Join(loc, ".claude-plugin", "marketplace.json")
}

// readCatalog reads and checks the marketplace at loc.
func readCatalog(loc string) (Catalog, error) {
	path := manifestPath(loc)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Catalog{}, inputf("no marketplace manifest: %s does not exist", path)
	}
	if err != nil {
		return Catalog{}, err
	}
	var m Catalog
	if err := json.Unmarshal(data, &m); err != nil {
		return Catalog{}, inputf("bad marketplace manifest %s: %v", path, err)
	}
	if !marketplaceName.MatchString(m.Name) || strings.Contains(m.Name, "..") {
		return Catalog{}, inputf("bad marketplace manifest %s: name %q is missing or not a plain name", path, m.Name)
	}
	for i, e := range m.Plugins {
		if e.Name == "" || len(e.Source) == 0 {
			return Catalog{}, inputf("bad marketplace manifest %s: plugins[%d] needs a name and a source", path, i)
		}
	}
	return m, nil
}

// Marketplaces are the known marketplaces, by name.
func (l Layout) Marketplaces() ([]Marketplace, error) {
	known := map[string]Marketplace{}
	if err := readJSON(l.knownMarketplaces(), &known); err != nil {
		return nil, err
	}
	out := make([]Marketplace, 0, len(known))
	for name, m := range known {
		m.Name = name
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (l Layout) marketplace(name string) (Marketplace, error) {
	all, err := l.Marketplaces()
	if err != nil {
		return Marketplace{}, err
	}
	for _, m := range all {
		if m.Name == name {
			return m, nil
		}
	}
	return Marketplace{}, inputf("marketplace %q not found (add it with `plugin marketplace add`)", name)
}

// AddMarketplace adds the marketplace arg names (see ParseSource): a
// folder or file is used in place, a git one cloned into
// ~/.claude/plugins/marketplaces/NAME. It is recorded in
// known_marketplaces.json and declared in the user's settings
// (extraKnownMarketplaces), as Claude Code does.
func (l Layout) AddMarketplace(ctx context.Context, arg string) (Marketplace, error) {
	src, err := ParseSource(arg, l.Home)
	if err != nil {
		return Marketplace{}, err
	}
	m := Marketplace{Source: src, InstallLocation: src.Path}
	if src.cloneURL() != "" {
		m.Name, m.InstallLocation, err = l.fetch(ctx, src, "")
	} else {
		var man Catalog
		man, err = readCatalog(src.Path)
		m.Name = man.Name
	}
	if err != nil {
		return Marketplace{}, err
	}
	return m, l.record(m)
}

// fetch clones a git source into the marketplaces folder, checks its
// manifest (and, when want is given, that it names want), and puts it at
// marketplaces/NAME in place of any older copy.
func (l Layout) fetch(ctx context.Context, src Source, want string) (name, loc string, err error) {
	dir := filepath.Join(l.pluginsDir(), "marketplaces")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	tmp := filepath.Join(dir, fmt.Sprintf("temp_%d", time.Now().UnixMilli()))
	defer os.RemoveAll(tmp)
	if err := clone(ctx, src.cloneURL(), src.Ref, tmp); err != nil {
		return "", "", fmt.Errorf("clone marketplace %s: %w", src.cloneURL(), err)
	}
	man, err := readCatalog(tmp)
	if err != nil {
		return "", "", err
	}
	if want != "" && man.Name != want {
		return "", "", inputf("marketplace %s now calls itself %q, not %q", src.cloneURL(), man.Name, want)
	}
	loc = filepath.Join(dir, man.Name)
	if err := os.RemoveAll(loc); err != nil {
		return "", "", err
	}
	return man.Name, loc, os.Rename(tmp, loc)
}

// record writes m to known_marketplaces.json and the user's
// extraKnownMarketplaces.
func (l Layout) record(m Marketplace) error {
	m.LastUpdated = stamp(time.Now())
	if err := l.update(l.knownMarketplaces(), false, func(o *object) error { return o.set(m.Name, m) }); err != nil {
		return err
	}
	user, _ := l.settings("user")
	return l.update(user, true, func(o *object) error {
		return o.setIn("extraKnownMarketplaces", m.Name, map[string]Source{"source": m.Source})
	})
}

// UpdateMarketplaces refreshes the named marketplaces (all when none):
// a git one is cloned afresh, a folder one checked again.
func (l Layout) UpdateMarketplaces(ctx context.Context, names ...string) ([]Marketplace, error) {
	var todo []Marketplace
	if len(names) == 0 {
		all, err := l.Marketplaces()
		if err != nil {
			return nil, err
		}
		todo = all
	}
	for _, name := range names {
		m, err := l.marketplace(name)
		if err != nil {
			return nil, err
		}
		todo = append(todo, m)
	}
	for i, m := range todo {
		var err error
		if m.Source.cloneURL() != "" {
			_, todo[i].InstallLocation, err = l.fetch(ctx, m.Source, m.Name)
		} else {
			_, err = readCatalog(m.InstallLocation)
		}
		if err == nil {
			err = l.record(todo[i])
		}
		if err != nil {
			return nil, fmt.Errorf("update marketplace %s: %w", m.Name, err)
		}
	}
	return todo, nil
}

// RemoveMarketplace forgets the marketplace name: its plugins are
// uninstalled from every scope (of this project), its declaration and
// entry removed, its clone deleted.
func (l Layout) RemoveMarketplace(name string) error {
	m, err := l.marketplace(name)
	if err != nil {
		return err
	}
	installed, err := l.Installed()
	if err != nil {
		return err
	}
	for _, in := range installed {
		if in.Marketplace() == name && (in.Scope == "user" || samePath(in.ProjectPath, l.ProjectRoot)) {
			if err := l.Uninstall(in.ID, in.Scope); err != nil {
				return err
			}
		}
	}
	user, _ := l.settings("user")
	if err := l.update(user, true, func(o *object) error { return o.setIn("extraKnownMarketplaces", name, nil) }); err != nil {
		return err
	}
	if err := l.update(l.knownMarketplaces(), false, func(o *object) error { o.remove(name); return nil }); err != nil {
		return err
	}
	if filepath.Dir(m.InstallLocation) == filepath.Join(l.pluginsDir(), "marketplaces") {
		return os.RemoveAll(m.InstallLocation)
	}
	return nil
}
