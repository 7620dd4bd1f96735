package subagent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/frontmatter"
	"github.com/csa-dev/csa/internal/csaagent/plugin"
)

// pluginDefinitions reads the agents of plugins as Claude Code does: the
// *.md files of the folders (at any depth) and files the manifest names,
// else of agents/; each named "plugin:" then its subfolders and its front
// matter's name (else its file's), each part joined by ":"; described by
// its description, else its when_to_use, else "Agent from P plugin"; its
// prompt with ${CLAUDE_PLUGIN_ROOT} and the like substituted.
func pluginDefinitions(plugins []plugin.Plugin, projectDir string) ([]Definition, error) {
	var out []Definition
	var errs []error
	for _, p := range plugins {
		paths, err := p.Agents()
		errs = append(errs, err)
		for _, path := range paths {
			files, err := []string{path}, error(nil)
			base := filepath.Dir(path)
			if st, statErr := os.Stat(path); statErr == nil && st.IsDir() {
				files, err = markdownFiles(path)
				base = path
				errs = append(errs, err)
			} else if !strings.HasSuffix(path, ".md") {
				continue
			}
			for _, f := range files {
				d, err := pluginDefinition(p, base, f, projectDir)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				out = append(out, d)
			}
		}
	}
	return out, errors.Join(errs...)
}

func pluginDefinition(p plugin.Plugin, base, path, projectDir string) (Definition, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Definition{}, fmt.Errorf("subagent definition %s: %w", path, err)
	}
	d, err := parseFile(path, data, true)
	if err != nil {
		// No front matter, or one that is not YAML (a description
		// running over lines holding "Context: ..."): Claude Code keeps
		// such a plugin agent, named by its file and described by its
		// plugin, its prompt what follows the front matter.
		_, body, _ := frontmatter.Split(data)
		d = Definition{Path: path, Prompt: strings.TrimSpace(body)}
	}
	parts := []string{p.Name}
	if rel, err := filepath.Rel(base, filepath.Dir(path)); err == nil && rel != "." {
		parts = append(parts, strings.Split(rel, string(filepath.Separator))...)
	}
	if d.Name == "" {
		d.Name = strings.TrimSuffix(filepath.Base(path), ".md")
	}
	d.Name = strings.Join(append(parts, d.Name), ":")
	if d.Description == "" {
		d.Description = strings.TrimSpace(d.whenToUse)
	}
	if d.Description == "" {
		d.Description = "Agent from " + p.Name + " plugin"
	}
	d.Prompt = p.Expand(d.Prompt, projectDir)
	return d, d.check()
}
