package subagent

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// flagAgent is one agent of Claude Code's --agents JSON, the fields
// csa-agent uses.
type flagAgent struct {
	Description string          `json:"description"`
	Prompt      string          `json:"prompt"`
	Tools       json.RawMessage `json:"tools"` // a list, or one string
	Model       string          `json:"model"`
}

// ParseFlag reads Claude Code's --agents JSON, an object of agents by
// name: {"reviewer": {"description": "...", "prompt": "...", "tools":
// ["Read"], "model": "sonnet"}}, sorted by name. As in Claude Code, one
// agent without a description or prompt voids the whole flag (its JSON
// does not match the schema), and an agent whose name is not one word is
// left out alone; the error names them.
func ParseFlag(arg string) ([]Definition, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal([]byte(arg), &all); err != nil {
		return nil, fmt.Errorf("--agents: %w", err)
	}
	names := make([]string, 0, len(all))
	for name := range all {
		names = append(names, name)
	}
	sort.Strings(names)
	var defs []Definition
	var errs []error
	for _, name := range names {
		d, err := parseFlagAgent(all[name])
		if err != nil {
			errs = append(errs, fmt.Errorf("agent %q: %w", name, err))
			continue
		}
		d.Name = name
		defs = append(defs, d)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("--agents: no agent is used: %w", errors.Join(errs...))
	}
	var out []Definition
	for _, d := range defs {
		if d.Name == "" || strings.HasPrefix(d.Name, "-") || strings.ContainsAny(d.Name, " \t/\\") {
			errs = append(errs, fmt.Errorf("--agents: agent %q left out: the name must be one word (letters, digits, - and _), not starting with -", d.Name))
			continue
		}
		out = append(out, d)
	}
	return out, errors.Join(errs...)
}

// parseFlagAgent reads one agent's object; Name is left for the caller.
func parseFlagAgent(raw json.RawMessage) (Definition, error) {
	var a flagAgent
	if err := json.Unmarshal(raw, &a); err != nil {
		return Definition{}, err
	}
	switch {
	case a.Description == "":
		return Definition{}, errors.New("no description (the Task tool shows it to the model)")
	case a.Prompt == "":
		return Definition{}, errors.New("no prompt")
	}
	d := Definition{Description: a.Description, Prompt: a.Prompt, Model: a.Model}
	if len(a.Tools) > 0 && string(a.Tools) != "null" {
		var list []string
		if err := json.Unmarshal(a.Tools, &list); err != nil {
			var one string
			if json.Unmarshal(a.Tools, &one) != nil {
				return Definition{}, errors.New("tools must be a list of tool names")
			}
			list = []string{one}
		}
		d.Tools = []string{}
		for _, t := range list {
			if t = strings.TrimSpace(t); t != "" {
				d.Tools = append(d.Tools, t)
			}
		}
		if len(d.Tools) == 1 && d.Tools[0] == "*" {
			d.Tools = nil
		}
	}
	return d, nil
}

// WithFlag adds --agents definitions to Load's: each replaces the one of
// its name, except an organisation's (read from managed), which wins over
// it as Claude Code's policy agents win over the flag's.
func WithFlag(defs, flag []Definition, managed string) []Definition {
	out := append([]Definition(nil), defs...)
	index := map[string]int{}
	for i, d := range out {
		index[d.Name] = i
	}
	for _, f := range flag {
		i, ok := index[f.Name]
		switch {
		case !ok:
			index[f.Name] = len(out)
			out = append(out, f)
		case managed == "" || !within(out[i].Path, managed):
			out[i] = f
		}
	}
	return out
}

// within reports whether path is below dir.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return path != "" && err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
