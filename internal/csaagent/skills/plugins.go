package skills

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/frontmatter"
	"github.com/csa-dev/csa/internal/csaagent/perm"
	"github.com/csa-dev/csa/internal/csaagent/plugin"
)

// pluginCommands reads a plugin's commands from the folders and files its
// manifest names (else commands/), as Claude Code does: a file is named
// "plugin:" and its base name, or the name the manifest gives it, whose
// description, argument hint, model and allowed tools win over the file's.
func pluginCommands(p plugin.Plugin) ([]Skill, error) {
	paths, meta, err := p.Commands()
	errs := []error{err}
	var out []Skill
	source, prefix := "plugin "+p.Name, p.Name+":"
	for _, path := range paths {
		if isDir(path) {
			list, err := loadCommands(path, source, prefix, p.Root)
			out, errs = append(out, list...), append(errs, err)
			continue
		}
		if !strings.HasSuffix(path, ".md") {
			continue
		}
		m, named := meta[path]
		name := strings.TrimSuffix(filepath.Base(path), ".md")
		if named {
			name = m.Name
		}
		fm, first, err := frontmatter.ReadHead(path)
		sk, err := parse(path, fm, first, KindCommand, name, err)
		if kept(err) && named {
			errs = append(errs, err)
			err = override(&sk, m)
		}
		errs = append(errs, err)
		if !kept(err) {
			continue
		}
		out = append(out, place(sk, path, source, prefix, p.Root))
	}
	return out, errors.Join(errs...)
}

// override applies the manifest's metadata of a command.
func override(sk *Skill, m plugin.CommandMeta) error {
	if m.Description != "" {
		sk.Description, sk.ownDescription = m.Description, true
	}
	if m.ArgumentHint != "" {
		sk.ArgumentHint = m.ArgumentHint
	}
	if m.Model != "" {
		sk.Model = m.Model
	}
	if len(m.AllowedTools) > 0 {
		rules, err := perm.ParseRules(m.AllowedTools)
		if err != nil {
			return fmt.Errorf("command %s: the manifest's allowedTools: %w", sk.Path, err)
		}
		sk.AllowedTools = rules
	}
	return nil
}

// pluginSkills reads a plugin's skills folders: one holding a SKILL.md is
// a skill named by its front matter's name (else the folder's), any other
// holds skill folders.
func pluginSkills(p plugin.Plugin) ([]Skill, error) {
	dirs, err := p.Skills()
	errs := []error{err}
	var out []Skill
	source, prefix := "plugin "+p.Name, p.Name+":"
	for _, dir := range dirs {
		path := filepath.Join(dir, "SKILL.md")
		fm, first, err := frontmatter.ReadHead(path)
		if errors.Is(err, os.ErrNotExist) {
			list, err := loadSkills(dir, source, prefix, p.Root)
			out, errs = append(out, list...), append(errs, err)
			continue
		}
		sk, err := parse(path, fm, first, KindSkill, filepath.Base(dir), err)
		errs = append(errs, err)
		if !kept(err) {
			continue
		}
		if sk.DisplayName != "" {
			sk.Name = notNameChar.ReplaceAllString(strings.TrimSpace(sk.DisplayName), "-")
		}
		out = append(out, place(sk, path, source, prefix, p.Root))
	}
	return out, errors.Join(errs...)
}

// notNameChar is what Claude Code replaces with "-" in a plugin skill's
// name.
var notNameChar = regexp.MustCompile(`[^a-zA-Z0-9_-]`)
