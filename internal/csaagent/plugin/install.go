package plugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Installation is one installation of a plugin in installed_plugins.json
// (version 2), its fields in Claude Code's order.
type Installation struct {
	ID           string `json:"-"`
	Scope        string `json:"scope"`
	ProjectPath  string `json:"projectPath,omitempty"`
	InstallPath  string `json:"installPath"`
	Version      string `json:"version"`
	InstalledAt  string `json:"installedAt"`
	LastUpdated  string `json:"lastUpdated"`
	GitCommitSha string `json:"gitCommitSha,omitempty"`
}

// Marketplace is the part of its id after the @.
func (in Installation) Marketplace() string { _, m, _ := strings.Cut(in.ID, "@"); return m }

// orphanMark is the file Claude Code leaves in a cached plugin no
// installation uses any more (its content: when, in Unix milliseconds).
const orphanMark = ".orphaned_at"

// splitID splits "name@marketplace".
func splitID(id string) (name, marketplace string, err error) {
	name, marketplace, ok := strings.Cut(id, "@")
	if !ok || name == "" || marketplace == "" {
		return "", "", inputf("plugin %q: give it as NAME@MARKETPLACE", id)
	}
	return name, marketplace, nil
}

// Installed are the installations in installed_plugins.json, by id,
// each id's in the file's order.
func (l Layout) Installed() ([]Installation, error) {
	var reg struct {
		Plugins object `json:"plugins"`
	}
	if err := readJSON(l.installedPlugins(), &reg); err != nil {
		return nil, err
	}
	var out []Installation
	for _, id := range reg.Plugins.keys {
		list, err := installations(reg.Plugins.vals[id])
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", l.installedPlugins(), id, err)
		}
		for _, in := range list {
			in.ID = id
			if in.Scope == "" {
				in.Scope = "user" // version 1 knew no scopes
			}
			out = append(out, in)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// installations reads one id's value: a list (version 2) or one object
// (version 1).
func installations(raw json.RawMessage) ([]Installation, error) {
	var list []Installation
	if json.Unmarshal(raw, &list) == nil {
		return list, nil
	}
	var one Installation
	if err := json.Unmarshal(raw, &one); err != nil {
		return nil, err
	}
	return []Installation{one}, nil
}

// mine says whether in is this layout's installation at its scope: a
// user one, or one for this project.
func (l Layout) mine(in Installation) bool {
	return in.Scope == "user" || samePath(in.ProjectPath, l.ProjectRoot)
}

// Install installs the plugin id ("name@marketplace") at scope: its
// folder is copied into ~/.claude/plugins/cache/MARKETPLACE/NAME/VERSION,
// recorded in installed_plugins.json and enabled in the scope's settings.
func (l Layout) Install(ctx context.Context, id, scope string) (Installation, error) {
	settings, err := l.settings(scope)
	if err != nil {
		return Installation{}, err
	}
	src, entry, base, err := l.source(id)
	if err != nil {
		return Installation{}, err
	}
	var pm struct {
		Version string `json:"version"`
	}
	_ = readJSON(filepath.Join(src, ".claude-plugin", "plugin.json"), &pm)
	sha := headCommit(ctx, src)
	version := firstOf(pm.Version, entry.Version, shortSHA(sha), "unknown")
	name, mkt, _ := splitID(id)
	dest := filepath.Join(l.pluginsDir(), "cache", safeName(mkt), safeName(name), safeVersion(version))
	if err := cache(src, dest, base, version == "unknown"); err != nil {
		return Installation{}, fmt.Errorf("install %s: %w", id, err)
	}
	now := stamp(time.Now())
	in := Installation{ID: id, Scope: scope, ProjectPath: l.projectPath(scope), InstallPath: dest,
		Version: version, InstalledAt: now, LastUpdated: now, GitCommitSha: sha}
	err = l.editInstalled(id, func(list []Installation) []Installation {
		for i, old := range list {
			if old.Scope == scope && old.ProjectPath == in.ProjectPath {
				in.InstalledAt = firstOf(old.InstalledAt, now)
				list[i] = in
				return list
			}
		}
		return append(list, in)
	})
	if err != nil {
		return Installation{}, err
	}
	return in, l.update(settings, true, func(o *object) error { return o.setIn("enabledPlugins", id, true) })
}

// source is the folder of plugin id in its marketplace, its entry and
// the marketplace's folder.
func (l Layout) source(id string) (dir string, e Entry, base string, err error) {
	name, mkt, err := splitID(id)
	if err != nil {
		return "", Entry{}, "", err
	}
	m, err := l.marketplace(mkt)
	if err != nil {
		return "", Entry{}, "", err
	}
	man, err := readCatalog(m.InstallLocation)
	if err != nil {
		return "", Entry{}, "", err
	}
	for _, e = range man.Plugins {
		if e.Name != name {
			continue
		}
		var rel string
		if json.Unmarshal(e.Source, &rel) != nil {
			return "", Entry{}, "", inputf("plugin %s: its source %s is not a path in the marketplace; csa-agent installs only those", id, e.Source)
		}
		base = filepath.Dir(manifestPath(m.InstallLocation))
		if filepath.Base(base) == ".claude-plugin" {
			base = filepath.Dir(base)
		}
		dir = filepath.Join(base, rel)
		if dir != base && !strings.HasPrefix(dir, base+string(filepath.Separator)) {
			return "", Entry{}, "", inputf("plugin %s: source %q leaves the marketplace", id, rel)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return "", Entry{}, "", inputf("plugin %s: source folder %s not found", id, dir)
		}
		return dir, e, base, nil
	}
	return "", Entry{}, "", inputf("plugin %q not found in marketplace %q", name, mkt)
}

// cache copies the plugin at src (in the marketplace at base) to dest
// (see copyPlugin), by a rename so dest is never half there. A complete
// copy already there is kept (and marked used again) unless refresh.
func cache(src, dest, base string, refresh bool) error {
	if !refresh && hasContent(dest) {
		return os.RemoveAll(filepath.Join(dest, orphanMark))
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dest), ".tmp-"+filepath.Base(dest)+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := copyPlugin(src, tmp, base); err != nil {
		return err
	}
	if err := os.RemoveAll(dest); err != nil {
		return err
	}
	return os.Rename(tmp, dest)
}

// hasContent says whether dir holds more than Claude Code's marks.
func hasContent(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Name() != orphanMark && e.Name() != ".in_use" {
			return true
		}
	}
	return false
}

// editInstalled rewrites id's installations in installed_plugins.json
// (an empty list drops the id), leaving the others as they are.
func (l Layout) editInstalled(id string, change func([]Installation) []Installation) error {
	return l.update(l.installedPlugins(), false, func(o *object) error {
		if !o.has("version") {
			if err := o.set("version", 2); err != nil { // first, as Claude Code writes it
				return err
			}
		}
		var plugins object
		if err := o.field("plugins", &plugins); err != nil {
			return fmt.Errorf("%s: plugins: %w", l.installedPlugins(), err)
		}
		var list []Installation
		if raw, ok := plugins.vals[id]; ok {
			var err error
			if list, err = installations(raw); err != nil {
				return fmt.Errorf("%s: %s: %w", l.installedPlugins(), id, err)
			}
		}
		list = change(list)
		if len(list) == 0 {
			plugins.remove(id)
		} else if err := plugins.set(id, list); err != nil {
			return err
		}
		if err := o.set("version", 2); err != nil { // a version 1 file is now in version 2's form
			return err
		}
		return o.set("plugins", plugins)
	})
}

// Uninstall removes plugin id's installation at scope and its
// enabledPlugins entry there; a cached copy no installation uses is
// marked orphaned, as Claude Code does (it deletes such copies later).
func (l Layout) Uninstall(id, scope string) error {
	settings, err := l.settings(scope)
	if err != nil {
		return err
	}
	var gone *Installation
	var rest []Installation
	err = l.editInstalled(id, func(list []Installation) []Installation {
		for i, in := range list {
			if gone == nil && in.Scope == scope && samePathOrEmpty(in.ProjectPath, l.projectPath(scope)) {
				gone = &list[i]
				continue
			}
			rest = append(rest, in)
		}
		return rest
	})
	if err != nil {
		return err
	}
	if gone == nil {
		return inputf("plugin %q is not installed at scope %s", id, scope)
	}
	if err := l.update(settings, true, func(o *object) error { return o.setIn("enabledPlugins", id, nil) }); err != nil {
		return err
	}
	all, err := l.Installed()
	if err != nil {
		return err
	}
	for _, in := range all {
		if in.InstallPath == gone.InstallPath {
			return nil
		}
	}
	if !exists(gone.InstallPath) {
		return nil
	}
	return os.WriteFile(filepath.Join(gone.InstallPath, orphanMark), []byte(strconv.FormatInt(time.Now().UnixMilli(), 10)), 0o644)
}

// SetEnabled enables or disables plugin id in scope's settings; scope ""
// picks the most specific scope it is installed at for this project.
func (l Layout) SetEnabled(id, scope string, on bool) (string, error) {
	if _, _, err := splitID(id); err != nil {
		return "", err
	}
	all, err := l.Installed()
	if err != nil {
		return "", err
	}
	found, rank := "", map[string]int{"user": 1, "project": 2, "local": 3}
	for _, in := range all {
		if in.ID == id && l.mine(in) && (scope == "" || in.Scope == scope) && rank[in.Scope] > rank[found] {
			found = in.Scope // the most specific
		}
	}
	if found == "" {
		if scope == "" {
			return "", inputf("plugin %q is not installed", id)
		}
		return "", inputf("plugin %q is not installed at scope %s", id, scope)
	}
	settings, err := l.settings(found)
	if err != nil {
		return "", err
	}
	word := map[bool]string{true: "enabled", false: "disabled"}[on]
	return found, l.update(settings, true, func(o *object) error {
		var enabled map[string]bool
		if err := o.field("enabledPlugins", &enabled); err != nil {
			return fmt.Errorf("%s: enabledPlugins: %w", settings, err)
		}
		if cur, ok := enabled[id]; ok && cur == on || !ok && !on {
			return inputf("plugin %q is already %s at %s scope", id, word, found)
		}
		return o.setIn("enabledPlugins", id, on)
	})
}

// Listed is one installation as `plugin list` shows it.
type Listed struct {
	Installation
	// Enabled is whether the settings (user, then the project's, then
	// its local ones, the later winning) enable its id, as Claude Code
	// says of every installation of the id.
	Enabled bool
}

// List is every installation (other projects' too, as Claude Code lists
// them) with whether its id is enabled here.
func (l Layout) List() ([]Listed, error) {
	all, err := l.Installed()
	if err != nil {
		return nil, err
	}
	var errs []error
	enabled := map[string]bool{}
	for _, scope := range Scopes {
		path, err := l.settings(scope)
		if err != nil {
			continue // no project
		}
		var f struct {
			EnabledPlugins map[string]bool `json:"enabledPlugins"`
		}
		if err := readJSON(path, &f); err != nil {
			errs = append(errs, err)
		}
		for id, on := range f.EnabledPlugins {
			enabled[id] = on
		}
	}
	out := make([]Listed, 0, len(all))
	for _, in := range all {
		out = append(out, Listed{Installation: in, Enabled: enabled[in.ID]})
	}
	return out, errors.Join(errs...)
}

var unsafeChars = regexp.MustCompile(`[^a-zA-Z0-9\-_]`)

// safeName and safeVersion are a name and a version as Claude Code puts
// them in a cache path.
func safeName(s string) string { return unsafeChars.ReplaceAllString(s, "-") }

func safeVersion(s string) string {
	v := regexp.MustCompile(`[^a-zA-Z0-9\-_.]`).ReplaceAllString(s, "-")
	if v == "." || v == ".." {
		return "-"
	}
	return v
}

func shortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func samePathOrEmpty(a, b string) bool { return a == b || samePath(a, b) }
