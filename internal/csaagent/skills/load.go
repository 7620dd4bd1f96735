// Package skills is csa-agent's skills and custom slash commands, in
// Claude Code's layout so what was written for Claude Code works
// unchanged: SKILL.md folders and .claude/commands markdown files of the
// user, the project and enabled plugins (load.go, plugins.go), their
// expansion into the prompt a "/name args" sends (expand.go), and the
// Skill tool the model loads them with (tool.go).
package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/frontmatter"
	"github.com/csa-dev/csa/internal/csaagent/perm"
	"github.com/csa-dev/csa/internal/csaagent/plugin"
)

// Kind tells a skill (a folder with SKILL.md) from a custom command (one
// markdown file).
type Kind string

const (
	KindSkill   Kind = "skill"
	KindCommand Kind = "command"
)

// Skill is one skill or custom command.
type Skill struct {
	// Name is what follows the slash and what the Skill tool lists: a
	// skill's folder name, "frontend:component" (a command in a
	// subfolder), "plugin:name" (a plugin's), as Claude Code names them.
	Name string
	// DisplayName is a skill's front matter `name`, any text; "/" followed
	// by it finds the skill too, as in Claude Code.
	DisplayName  string
	Kind         Kind
	Description  string
	ArgumentHint string
	// ArgNames are the front matter's `arguments`: $NAME is the word at
	// its index.
	ArgNames []string
	// AllowedTools are allowed without asking while it runs (the turn
	// it was invoked in).
	AllowedTools []perm.Rule
	// Model, when set, is the model (a spec or Claude Code's alias) the
	// rest of the turn runs on once the skill is invoked or loaded.
	Model string
	// UserInvocable: "/name" runs it (front matter user-invocable).
	UserInvocable bool
	// ModelInvocable: the Skill tool offers it (not
	// disable-model-invocation; a plugin's also needs a description of
	// its own, as in Claude Code).
	ModelInvocable bool
	// ownDescription: the front matter gave the description.
	ownDescription bool
	// Body is the instructions of a skill made in memory; Load reads only
	// the front matter, and Instructions reads the body on use (onDisk).
	Body   string
	onDisk bool
	// Dir is a skill's folder (its bundled files) or a command's.
	Dir  string
	Path string
	// Source is "user", "project" or "plugin NAME".
	Source string
	// PluginRoot is a plugin's folder, for ${CLAUDE_PLUGIN_ROOT}.
	PluginRoot string
}

// Set is the loaded skills and commands by name.
type Set struct {
	byName map[string]Skill
}

// Lookup finds a skill or command by name, else by a skill's display
// name (its front matter `name`), as Claude Code finds them.
func (s *Set) Lookup(name string) (Skill, bool) {
	if sk, ok := s.byName[name]; ok {
		return sk, true
	}
	for _, sk := range s.All() {
		if sk.DisplayName != "" && sk.DisplayName == name {
			return sk, true
		}
	}
	return Skill{}, false
}

// All lists them sorted by name.
func (s *Set) All() []Skill {
	out := make([]Skill, 0, len(s.byName))
	for _, sk := range s.byName {
		out = append(out, sk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ModelInvocable lists those the Skill tool offers, sorted by name.
func (s *Set) ModelInvocable() []Skill {
	var out []Skill
	for _, sk := range s.All() {
		if sk.ModelInvocable {
			out = append(out, sk)
		}
	}
	return out
}

// Sources are where Load looks: the user's home (~/.claude), the project
// root (its .claude) and --plugin-dir folders. Any may be empty.
type Sources struct {
	Home, ProjectRoot string
	// Cwd, when below ProjectRoot, adds the .claude of each folder from it
	// up to the root, as Claude Code reads them.
	Cwd        string
	PluginDirs []string
}

// Load reads the commands and skills in Claude Code's order, where the
// first of a name wins (a later one of that name is left out): the user's
// skills, the project's (the working directory's first, then each folder
// up to the project root), the user's commands, the project's, then those
// of the enabled plugins (a plugin's skill beats its command). Plugins'
// names carry the plugin's ("plugin:name"). A file that cannot be read or
// parsed is left out and named in the error, which joins every such
// failure: the set returned holds the good ones.
func Load(src Sources) (*Set, error) {
	plugins, err := plugin.Enabled(plugin.Sources{Home: src.Home, ProjectRoot: src.ProjectRoot, Dirs: src.PluginDirs})
	s, loadErr := LoadWith(src, plugins)
	return s, errors.Join(err, loadErr)
}

// LoadWith is Load with the enabled plugins already found (src.PluginDirs
// is then unused).
func LoadWith(src Sources, plugins []plugin.Plugin) (*Set, error) {
	s := &Set{byName: map[string]Skill{}}
	var errs []error
	add := func(list []Skill, err error) {
		for _, sk := range list {
			if _, taken := s.byName[sk.Name]; !taken {
				s.byName[sk.Name] = sk
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	type base struct{ dir, source string }
	var bases []base
	if src.Home != "" {
		bases = append(bases, base{filepath.Join(src.Home, ".claude"), "user"})
	}
	for _, d := range projectDirs(src.Cwd, src.ProjectRoot, src.Home) {
		bases = append(bases, base{filepath.Join(d, ".claude"), "project"})
	}
	for _, b := range bases {
		add(loadSkills(filepath.Join(b.dir, "skills"), b.source, "", ""))
	}
	for _, b := range bases {
		add(loadCommands(filepath.Join(b.dir, "commands"), b.source, "", ""))
	}
	for _, p := range plugins {
		add(pluginSkills(p))
		add(pluginCommands(p))
	}
	return s, errors.Join(errs...)
}

// projectDirs lists cwd and each folder above it up to root, as Claude
// Code walks them (never home or above it); just root when cwd is not
// below it.
func projectDirs(cwd, root, home string) []string {
	if root == "" {
		return nil
	}
	root = filepath.Clean(root)
	rel, err := filepath.Rel(root, cwd)
	if cwd == "" || err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return []string{root}
	}
	var out []string
	for d := filepath.Clean(cwd); ; d = filepath.Dir(d) {
		if home != "" && d == filepath.Clean(home) {
			break
		}
		out = append(out, d)
		if d == root || d == filepath.Dir(d) {
			break
		}
	}
	return out
}

// loadSkills reads dir/NAME/SKILL.md; a missing dir has none.
func loadSkills(dir, source, prefix, pluginRoot string) ([]Skill, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("skills %s: %w", dir, err)
	}
	var out []Skill
	var errs []error
	for _, e := range entries {
		path := filepath.Join(dir, e.Name(), "SKILL.md")
		// The entry's type spares a stat, but for a link.
		if !e.IsDir() && (e.Type()&fs.ModeSymlink == 0 || !isDir(filepath.Join(dir, e.Name()))) {
			continue
		}
		fm, first, err := frontmatter.ReadHead(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // a folder without SKILL.md is no skill
		}
		sk, err := parse(path, fm, first, KindSkill, e.Name(), err)
		errs = append(errs, err)
		if !kept(err) {
			continue
		}
		out = append(out, place(sk, path, source, prefix, pluginRoot))
	}
	return out, errors.Join(errs...)
}

// loadCommands reads dir/**/*.md; a file in a subfolder is named
// "sub:name".
func loadCommands(dir, source, prefix, pluginRoot string) ([]Skill, error) {
	if !isDir(dir) {
		return nil, nil
	}
	var out []Skill
	var errs []error
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, fmt.Errorf("commands %s: %w", path, err))
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".md") {
			return nil
		}
		rel, _ := filepath.Rel(dir, strings.TrimSuffix(path, ".md"))
		fm, first, err := frontmatter.ReadHead(path)
		sk, err := parse(path, fm, first, KindCommand, strings.ReplaceAll(filepath.ToSlash(rel), "/", ":"), err)
		errs = append(errs, err)
		if !kept(err) {
			return nil
		}
		out = append(out, place(sk, path, source, prefix, pluginRoot))
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}

// place sets where a parsed skill or command came from.
func place(sk Skill, path, source, prefix, pluginRoot string) Skill {
	sk.Name, sk.Dir, sk.Source, sk.PluginRoot = prefix+sk.Name, filepath.Dir(path), source, pluginRoot
	if pluginRoot != "" && !sk.ownDescription {
		sk.ModelInvocable = false
	}
	return sk
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

var validName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.:-]*$`)

// parse reads one SKILL.md or command file from its front matter and its
// body's first line, as frontmatter.ReadHead gives them (readErr is its
// error); name is the folder's or file's, used when the front matter has
// none. A file without front matter is all body.
func parse(path, fm, firstLine string, kind Kind, name string, readErr error) (Skill, error) {
	bad := func(format string, args ...any) (Skill, error) {
		return Skill{}, fmt.Errorf("%s %s: %s", kind, path, fmt.Sprintf(format, args...))
	}
	if readErr != nil && !errors.Is(readErr, frontmatter.ErrNone) {
		return bad("%v", readErr)
	}
	// Front matter that is not YAML is ignored, as Claude Code ignores it:
	// the skill is read as one without, the error only reported.
	fields, ignored := frontmatter.Parse(fm)
	if ignored != nil {
		ignored = fmt.Errorf("%s %s: %w: %w", kind, path, errIgnored, ignored)
	}
	sk := Skill{Name: name, Kind: kind, Path: path, onDisk: true}
	disable := false
	var err error
	for k, v := range fields {
		switch k {
		case "name": // a display name: Claude Code names a skill by its folder
			if kind == KindSkill {
				sk.DisplayName, err = v.Scalar(k)
			}
		case "arguments":
			sk.ArgNames = argNames(v)
		case "description":
			sk.Description, err = v.Scalar(k)
		case "argument-hint":
			// "[file]" is written unquoted, which YAML reads as a list.
			if v.IsList() {
				sk.ArgumentHint = "[" + strings.Join(v.List(), ", ") + "]"
			} else {
				sk.ArgumentHint, err = v.Scalar(k)
			}
		case "model":
			sk.Model, err = v.Scalar(k)
		case "user-invocable":
			sk.UserInvocable = v.Bool(true)
		case "disable-model-invocation":
			disable = v.Bool(false)
		case "allowed-tools":
			sk.AllowedTools, err = allowedTools(v)
		}
		if err != nil {
			return bad("%v", err)
		}
	}
	if _, given := fields["user-invocable"]; !given {
		sk.UserInvocable = true
	}
	sk.ownDescription = sk.Description != ""
	sk.ModelInvocable = !disable
	if sk.Description == "" {
		sk.Description = describe(firstLine, kind)
	}
	if !validName.MatchString(sk.Name) {
		return bad("name %q must be one word (letters, digits, -, _ and .)", sk.Name)
	}
	return sk, ignored
}

// errIgnored is parse's error for a skill or command kept without its
// front matter.
var errIgnored = errors.New("front matter ignored")

// kept reports whether parse's skill is to be used despite its error.
func kept(err error) bool { return err == nil || errors.Is(err, errIgnored) }

// argNames reads `arguments`: a list or one string of names separated by
// spaces; numbers are no names ($0 is the first word already).
func argNames(v frontmatter.Value) []string {
	items := v.List()
	if !v.IsList() {
		s, _ := v.Scalar("arguments")
		items = strings.Fields(s)
	}
	var out []string
	for _, n := range items {
		if n = strings.TrimSpace(n); n != "" && strings.Trim(n, "0123456789") != "" {
			out = append(out, n)
		}
	}
	return out
}

// allowedTools reads permission rules written as a list or as one string
// separated by commas or spaces ("Read, Bash(git add:*)").
func allowedTools(v frontmatter.Value) ([]perm.Rule, error) {
	items := v.List()
	if !v.IsList() {
		s, err := v.Scalar("allowed-tools")
		if err != nil {
			return nil, err
		}
		items = perm.SplitRules([]string{s})
	}
	rules, err := perm.ParseRules(items)
	if err != nil {
		return nil, fmt.Errorf("allowed-tools: %w", err)
	}
	return rules, nil
}

// describe is Claude Code's description of a file without one: its first
// line of text (a heading's text without its #s), cut to 100 characters;
// a file without text is described by its kind.
func describe(body string, kind Kind) string {
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		if m := heading.FindStringSubmatch(l); m != nil {
			l = m[1]
		}
		if r := []rune(l); len(r) > 100 { // Claude Code counts UTF-16 units
			l = string(r[:97]) + "..."
		}
		return l
	}
	if kind == KindSkill {
		return "Skill"
	}
	return "Custom command"
}

var heading = regexp.MustCompile(`^#+\s+(.+)$`)
