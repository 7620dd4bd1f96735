package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The component fields follow Claude Code 2.1.197: "commands", "agents"
// and "outputStyles" replace their default folder; "skills" adds to
// skills/; "hooks" adds to hooks/hooks.json; "mcpServers" adds to (and
// overrides names of) .mcp.json.

// CommandMeta is what the manifest's object form of "commands" says of
// one command file: its name and the front matter it overrides.
type CommandMeta struct {
	Name         string   `json:"-"`
	Source       string   `json:"source"`
	Content      string   `json:"content"`
	Description  string   `json:"description"`
	ArgumentHint string   `json:"argumentHint"`
	Model        string   `json:"model"`
	AllowedTools []string `json:"allowedTools"`
}

// Commands are the folders and .md files its commands are read from, and
// the manifest's metadata of files by their full path.
func (p Plugin) Commands() (paths []string, meta map[string]CommandMeta, err error) {
	paths, meta, err = p.manifestCommands()
	more, _, e := p.added("commands", p.Entry.Commands)
	return append(paths, more...), meta, errors.Join(err, e)
}

// manifestCommands are the commands' paths the manifest gives, else
// commands/.
func (p Plugin) manifestCommands() (paths []string, meta map[string]CommandMeta, err error) {
	if !given(p.Manifest.Commands) {
		return p.defaultDir("commands"), nil, nil
	}
	var byName map[string]CommandMeta
	if json.Unmarshal(p.Manifest.Commands, &byName) == nil && isMetaForm(byName) {
		var errs []error
		meta = map[string]CommandMeta{}
		for name, m := range byName {
			if m.Source == "" {
				errs = append(errs, fmt.Errorf("plugin %s: manifest commands.%s: inline content is not supported, give a source", p.Name, name))
				continue
			}
			full, es := p.existing("commands."+name, []string{m.Source})
			errs = append(errs, es...)
			if len(full) == 1 {
				m.Name = name
				meta[full[0]] = m
				paths = append(paths, full[0])
			}
		}
		return paths, meta, errors.Join(errs...)
	}
	rel, _, err := entries(p.Manifest.Commands)
	paths, errs := p.existing("commands", rel)
	return paths, nil, errors.Join(append(errs, err)...)
}

// isMetaForm tells the object form ({"name": {"source": ...}}) from a
// stray object.
func isMetaForm(m map[string]CommandMeta) bool {
	for _, v := range m {
		if v.Source != "" || v.Content != "" {
			return true
		}
	}
	return false
}

// Agents are the folders and .md files its agents are read from.
func (p Plugin) Agents() ([]string, error) {
	return p.replacing("agents", "agents", p.Manifest.Agents, p.Entry.Agents)
}

// OutputStyles are the folders and .md files its output styles are read
// from.
func (p Plugin) OutputStyles() ([]string, error) {
	return p.replacing("outputStyles", "output-styles", p.Manifest.OutputStyles, p.Entry.OutputStyles)
}

// Skills are its skills folders: skills/ and the manifest's (each a
// folder of skill folders, or a skill's own folder with its SKILL.md);
// without either, the root when it holds a SKILL.md.
//
// The marketplace entry's skills are added; when the plugin is the
// marketplace's own folder, they are all its skills (skills/ is read only
// when listed), as in Claude Code.
func (p Plugin) Skills() ([]string, error) {
	out, err := p.manifestSkills()
	more, _, addErr := p.added("skills", p.Entry.Skills)
	if p.listedSkillsOnly {
		out = nil
		for _, full := range more {
			if full == filepath.Clean(p.Root) || full == p.Dir("skills") {
				out = p.defaultDir("skills")
			}
		}
	}
	for _, full := range more {
		if full != p.Dir("skills") && full != filepath.Clean(p.Root) && !slices.Contains(out, full) {
			out = append(out, full)
		}
	}
	return out, errors.Join(err, addErr)
}

// manifestSkills are skills/ and the manifest's skills folders.
func (p Plugin) manifestSkills() ([]string, error) {
	out := p.defaultDir("skills")
	if !given(p.Manifest.Skills) {
		if len(out) == 0 && isFile(filepath.Join(p.Root, "SKILL.md")) {
			out = []string{p.Root}
		}
		return out, nil
	}
	rel, _, err := entries(p.Manifest.Skills)
	paths, errs := p.existing("skills", rel)
	for _, full := range paths {
		if full != filepath.Join(p.Root, "skills") {
			out = append(out, full)
		}
	}
	return out, errors.Join(append(errs, err)...)
}

// replacing is a component whose manifest field replaces its folder.
// The marketplace entry's (added) come after.
func (p Plugin) replacing(field, dir string, raw, added json.RawMessage) ([]string, error) {
	more, _, addErr := p.added(field, added)
	if !given(raw) {
		return append(p.defaultDir(dir), more...), addErr
	}
	rel, _, err := entries(raw)
	paths, errs := p.existing(field, rel)
	return append(paths, more...), errors.Join(append(errs, err, addErr)...)
}

// added resolves the paths and objects a marketplace entry's field
// adds.
func (p Plugin) added(field string, raw json.RawMessage) ([]string, []json.RawMessage, error) {
	rel, objects, err := entries(raw)
	paths, errs := p.existing("marketplace entry "+field, rel)
	return paths, objects, errors.Join(append(errs, err)...)
}

// defaultDir is the component's folder when it exists.
func (p Plugin) defaultDir(name string) []string {
	d := p.Dir(name)
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return []string{d}
	}
	return nil
}

// Doc is one JSON object a plugin's component came from.
type Doc struct {
	// Where names it in messages: a file, or "NAME's manifest".
	Where string
	JSON  json.RawMessage
}

// Hooks are its hook settings, each an object of groups by event (the
// "hooks" of a settings file): hooks/hooks.json's, then those of the
// files and objects the manifest adds. A manifest file that is
// hooks/hooks.json again is refused, as Claude Code refuses it.
func (p Plugin) Hooks() ([]Doc, error) {
	var out []Doc
	var errs []error
	std := filepath.Join(p.Root, "hooks", "hooks.json")
	seen := map[string]bool{}
	file := func(path string) {
		var f struct {
			Hooks json.RawMessage `json:"hooks"`
		}
		if err := readJSON(path, &f); err != nil {
			errs = append(errs, fmt.Errorf("plugin %s: %w", p.Name, err))
			return
		}
		seen[realPath(path)] = true
		if given(f.Hooks) {
			out = append(out, Doc{Where: path, JSON: f.Hooks})
		}
	}
	if isFile(std) {
		file(std)
	}
	rel, objects, err := entries(p.Manifest.Hooks)
	paths, es := p.existing("hooks", rel)
	errs = append(append(errs, es...), err)
	for _, path := range paths {
		if seen[realPath(path)] {
			errs = append(errs, fmt.Errorf("plugin %s: manifest hooks: %s is loaded already (hooks/hooks.json is read without being named)", p.Name, path))
			continue
		}
		file(path)
	}
	for _, o := range objects {
		out = append(out, Doc{Where: p.Name + "'s manifest", JSON: o})
	}
	paths, objects, err = p.added("hooks", p.Entry.Hooks)
	errs = append(errs, err)
	for _, path := range paths {
		file(path)
	}
	for _, o := range objects {
		out = append(out, Doc{Where: p.Name + "'s marketplace entry", JSON: o})
	}
	return out, errors.Join(errs...)
}

// MCPServers are its MCP servers by name: .mcp.json's (its mcpServers,
// or the whole file), then those of the manifest's files and objects, a
// later one replacing an earlier one of the same name.
func (p Plugin) MCPServers() (servers map[string]json.RawMessage, where map[string]string, err error) {
	servers, where = map[string]json.RawMessage{}, map[string]string{}
	var errs []error
	add := func(doc json.RawMessage, from string) {
		var f map[string]json.RawMessage
		if err := json.Unmarshal(doc, &f); err != nil {
			errs = append(errs, fmt.Errorf("plugin %s: %s: %w", p.Name, from, err))
			return
		}
		if inner, ok := f["mcpServers"]; ok {
			f = nil
			if err := json.Unmarshal(inner, &f); err != nil {
				errs = append(errs, fmt.Errorf("plugin %s: %s: mcpServers: %w", p.Name, from, err))
				return
			}
		}
		for name, s := range f {
			servers[name], where[name] = s, from
		}
	}
	file := func(path string) {
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("plugin %s: %w", p.Name, err))
			return
		}
		add(data, path)
	}
	file(filepath.Join(p.Root, ".mcp.json"))
	rel, objects, err := entries(p.Manifest.MCPServers)
	errs = append(errs, err)
	for _, r := range rel {
		if strings.HasSuffix(r, ".mcpb") || strings.HasPrefix(r, "http://") || strings.HasPrefix(r, "https://") {
			errs = append(errs, fmt.Errorf("plugin %s: manifest mcpServers: %s: MCP bundles are not supported", p.Name, r))
			continue
		}
		full, es := p.existing("mcpServers", []string{r})
		errs = append(errs, es...)
		for _, f := range full {
			file(f)
		}
	}
	for _, o := range objects {
		add(o, p.Name+"'s manifest")
	}
	return servers, where, errors.Join(errs...)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
