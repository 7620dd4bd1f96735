package subagent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/frontmatter"
)

// GeneralPurpose is the built-in subagent, used when a Task call names no
// type. A definition of the same name in a directory replaces it.
const GeneralPurpose = "general-purpose"

// Definition is one subagent: Claude Code's `.claude/agents/*.md` format,
// YAML front matter then the system prompt.
//
//	---
//	name: code-reviewer
//	description: Reviews a change for bugs. Use after editing code.
//	tools: Read, Grep, Glob        # or a YAML list; absent: every tool but Task
//	model: inherit                 # or a provider/model spec, or an alias
//	---
//	You are a careful code reviewer...
type Definition struct {
	Name        string
	Description string
	// Tools names the tools it gets; nil means all of the main agent's
	// tools but Task (see the package doc for the depth rule).
	Tools []string
	// Model is "" or "inherit" for the caller's model, else a spec the
	// Config.ResolveModel callback turns into a provider and model.
	Model string
	// Prompt is appended to the standard system prompt.
	Prompt string
	// Path is the file it was read from ("" for the built-in one).
	Path string
}

// Builtin is the general-purpose definition.
func Builtin() Definition {
	return Definition{
		Name: GeneralPurpose,
		Description: "General-purpose agent for researching complex questions, searching for code, " +
			"and executing multi-step tasks. When you are searching for a keyword or file and are not " +
			"confident that you will find the right match in the first few tries, use this agent.",
		Prompt: "You are a subagent started by another agent for one task. Do it with the tools you have, " +
			"then answer with a complete, self-contained report: the agent that started you sees only " +
			"your final message.",
	}
}

// Dirs are the directories definitions are read from, in order (later ones
// override earlier ones by name): the user's ~/.claude/agents, then the
// project's .claude/agents and .csa/agents. An empty home or project root
// leaves its directories out.
func Dirs(home, projectRoot string) []string {
	var dirs []string
	if home != "" {
		dirs = append(dirs, filepath.Join(home, ".claude", "agents"))
	}
	if projectRoot != "" {
		dirs = append(dirs, filepath.Join(projectRoot, ".claude", "agents"), filepath.Join(projectRoot, ".csa", "agents"))
	}
	return dirs
}

// Load reads the definitions of Dirs(home, projectRoot): the built-in
// general-purpose one first, then every *.md file of each directory in
// name order, a later definition replacing an earlier one of the same
// name. Missing directories are skipped. A file that cannot be read or
// parsed is left out and named in the error, which joins all such
// failures; the definitions returned are the good ones, so a caller may
// warn and go on.
func Load(home, projectRoot string) ([]Definition, error) {
	defs := []Definition{Builtin()}
	index := map[string]int{GeneralPurpose: 0}
	var errs []error
	for _, dir := range Dirs(home, projectRoot) {
		names, err := filepath.Glob(filepath.Join(dir, "*.md"))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sort.Strings(names)
		for _, p := range names {
			data, err := os.ReadFile(p)
			if err != nil {
				errs = append(errs, fmt.Errorf("subagent definition %s: %w", p, err))
				continue
			}
			d, err := Parse(p, data)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if i, ok := index[d.Name]; ok {
				defs[i] = d
				continue
			}
			index[d.Name] = len(defs)
			defs = append(defs, d)
		}
	}
	return defs, errors.Join(errs...)
}

// Parse reads one definition file; path is for messages and Path. The
// front matter is read by package frontmatter; unknown keys (color...) are
// ignored.
func Parse(path string, data []byte) (Definition, error) {
	bad := func(format string, args ...any) (Definition, error) {
		return Definition{}, fmt.Errorf("subagent definition %s: %s", path, fmt.Sprintf(format, args...))
	}
	fm, body, err := frontmatter.Split(data)
	if err != nil {
		return bad("%v", err)
	}
	fields, err := frontmatter.Parse(fm)
	if err != nil {
		return bad("%v", err)
	}
	d := Definition{Path: path, Prompt: strings.TrimSpace(body)}
	for k, v := range fields {
		switch k {
		case "name":
			d.Name, err = v.Scalar(k)
		case "description":
			d.Description, err = v.Scalar(k)
		case "model":
			d.Model, err = v.Scalar(k)
		case "tools":
			d.Tools = v.List()
			if d.Tools == nil {
				d.Tools = []string{} // "tools:" given empty: no tools
			}
			if len(d.Tools) == 1 && d.Tools[0] == "*" {
				d.Tools = nil
			}
		}
		if err != nil {
			return bad("%v", err)
		}
	}
	if _, given := fields["tools"]; !given {
		d.Tools = nil
	}
	switch {
	case d.Name == "":
		return bad("no name in the front matter")
	case strings.ContainsAny(d.Name, " \t/\\"):
		return bad("name %q must be one word (letters, digits, - and _)", d.Name)
	case d.Description == "":
		return bad("no description in the front matter (the Task tool shows it to the model)")
	}
	return d, nil
}
