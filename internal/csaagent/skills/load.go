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
	// Name is what follows the slash: "fix-issue", "frontend:component"
	// (a command in a subfolder), "plugin:name" (a plugin's).
	Name         string
	Kind         Kind
	Description  string
	ArgumentHint string
	// AllowedTools are allowed without asking while it runs (the turn
	// it was invoked in).
	AllowedTools []perm.Rule
	// Model, when set, is the model (a spec or Claude Code's alias) the
	// rest of the turn runs on once the skill is invoked or loaded.
	Model string
	// UserInvocable: "/name" runs it (front matter user-invocable).
	UserInvocable bool
	// ModelInvocable: the Skill tool offers it (not
	// disable-model-invocation; a command also needs a description of
	// its own, as Claude Code's model saw only those).
	ModelInvocable bool
	Body           string
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

// Lookup finds a skill or command by name.
func (s *Set) Lookup(name string) (Skill, bool) {
	sk, ok := s.byName[name]
	return sk, ok
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

// Sources are where Load looks: the user's home (~/.claude) and the
// project root (its .claude). Either may be "".
type Sources struct {
	Home, ProjectRoot string
}

// Load reads the user's commands and skills, then the project's, then
// those of the enabled plugins; a later one replaces an earlier one of the
// same name (the project's beat the user's; a skill beats a command of its
// own source). Plugins' names carry the plugin's ("plugin:name"). A file
// that cannot be read or parsed is left out and named in the error, which
// joins every such failure: the set returned holds the good ones.
func Load(src Sources) (*Set, error) {
	s := &Set{byName: map[string]Skill{}}
	var errs []error
	add := func(list []Skill, err error) {
		for _, sk := range list {
			s.byName[sk.Name] = sk
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	for _, base := range []struct{ dir, source string }{{src.Home, "user"}, {src.ProjectRoot, "project"}} {
		if base.dir == "" {
			continue
		}
		claude := filepath.Join(base.dir, ".claude")
		add(loadCommands(filepath.Join(claude, "commands"), base.source, "", ""))
		add(loadSkills(filepath.Join(claude, "skills"), base.source, "", ""))
	}
	plugins, err := enabledPlugins(src.Home, src.ProjectRoot)
	if err != nil {
		errs = append(errs, err)
	}
	for _, p := range plugins {
		add(loadCommands(filepath.Join(p.root, "commands"), "plugin "+p.name, p.name+":", p.root))
		add(loadSkills(filepath.Join(p.root, "skills"), "plugin "+p.name, p.name+":", p.root))
	}
	return s, errors.Join(errs...)
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
		if !isDir(filepath.Join(dir, e.Name())) {
			continue
		}
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // a folder without SKILL.md is no skill
		}
		sk, err := parse(path, data, KindSkill, e.Name(), err)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sk.Name, sk.Dir, sk.Source, sk.PluginRoot = prefix+sk.Name, filepath.Dir(path), source, pluginRoot
		out = append(out, sk)
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
		data, err := os.ReadFile(path)
		sk, err := parse(path, data, KindCommand, strings.ReplaceAll(filepath.ToSlash(rel), "/", ":"), err)
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		sk.Name, sk.Dir, sk.Source, sk.PluginRoot = prefix+sk.Name, filepath.Dir(path), source, pluginRoot
		out = append(out, sk)
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

var validName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.:-]*$`)

// parse reads one SKILL.md or command file (readErr is its reading's
// error); name is the folder's or file's, used when the front matter has
// none. A file without front matter is all body.
func parse(path string, data []byte, kind Kind, name string, readErr error) (Skill, error) {
	bad := func(format string, args ...any) (Skill, error) {
		return Skill{}, fmt.Errorf("%s %s: %s", kind, path, fmt.Sprintf(format, args...))
	}
	if readErr != nil {
		return bad("%v", readErr)
	}
	fm, body, err := frontmatter.Split(data)
	if err != nil && !errors.Is(err, frontmatter.ErrNone) {
		return bad("%v", err)
	}
	fields, err := frontmatter.Parse(fm)
	if err != nil {
		return bad("%v", err)
	}
	sk := Skill{Name: name, Kind: kind, Path: path, Body: strings.TrimSpace(body)}
	disable := false
	for k, v := range fields {
		switch k {
		case "name":
			if kind == KindSkill { // a command's name is its file's
				sk.Name, err = v.Scalar(k)
			}
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
			sk.UserInvocable, err = v.Bool(k, true)
		case "disable-model-invocation":
			disable, err = v.Bool(k, false)
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
	sk.ModelInvocable = !disable && (kind == KindSkill || sk.Description != "")
	if sk.Description == "" {
		sk.Description = firstLine(sk.Body)
	}
	if !validName.MatchString(sk.Name) {
		return bad("name %q must be one word (letters, digits, -, _ and .)", sk.Name)
	}
	return sk, nil
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

// firstLine is a description for a file without one: its first line of
// text, without a heading's #.
func firstLine(body string) string {
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(l, "#")); l != "" {
			return l
		}
	}
	return ""
}
