package subagent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
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
// front matter is the YAML subset these files use: "key: value" lines,
// quoted or plain scalars, block scalars (| and >), and lists (inline
// [a, b] or "- item" lines). Unknown keys (color...) are ignored.
func Parse(path string, data []byte) (Definition, error) {
	bad := func(format string, args ...any) (Definition, error) {
		return Definition{}, fmt.Errorf("subagent definition %s: %s", path, fmt.Sprintf(format, args...))
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	text = strings.TrimPrefix(text, "\ufeff")
	if !strings.HasPrefix(text, "---\n") {
		return bad("no front matter: the file must start with a line \"---\"")
	}
	rest := text[4:]
	end := strings.Index(rest, "\n---")
	var fm, body string
	switch {
	case strings.HasPrefix(rest, "---"):
		fm, body = "", rest[3:]
	case end < 0:
		return bad("front matter not closed: no line \"---\" after it")
	default:
		fm, body = rest[:end+1], rest[end+4:]
	}
	if i := strings.IndexByte(body, '\n'); i >= 0 && strings.TrimSpace(body[:i]) == "" {
		body = body[i+1:]
	} else if strings.TrimSpace(body) == "" {
		body = ""
	} else {
		return bad("front matter not closed: the closing \"---\" must be a line of its own")
	}
	fields, err := frontMatter(fm)
	if err != nil {
		return bad("%v", err)
	}
	d := Definition{Path: path, Prompt: strings.TrimSpace(body)}
	for k, v := range fields {
		switch k {
		case "name":
			d.Name, err = v.scalar(k)
		case "description":
			d.Description, err = v.scalar(k)
		case "model":
			d.Model, err = v.scalar(k)
		case "tools":
			d.Tools = v.list()
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

// value is a front matter value: a scalar or a list.
type value struct {
	s      string
	items  []string
	isList bool
}

func (v value) scalar(key string) (string, error) {
	if v.isList {
		return "", fmt.Errorf("%s must be a single value, not a list", key)
	}
	return v.s, nil
}

// list splits a comma-separated scalar ("Read, Grep") or returns the list.
func (v value) list() []string {
	items := v.items
	if !v.isList {
		items = strings.Split(v.s, ",")
	}
	var out []string
	for _, it := range items {
		if it = strings.TrimSpace(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}

func frontMatter(fm string) (map[string]value, error) {
	out := map[string]value{}
	lines := strings.Split(fm, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			return nil, fmt.Errorf("front matter line %d: unexpected indentation: %q", i+1, line)
		}
		k, raw, ok := strings.Cut(line, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t\"'") {
			return nil, fmt.Errorf("front matter line %d: want \"key: value\", got %q", i+1, line)
		}
		raw = strings.TrimSpace(raw)
		// The indented lines that follow belong to this key.
		var block []string
		for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || lines[i+1][0] == ' ' || lines[i+1][0] == '\t' ||
			strings.HasPrefix(lines[i+1], "- ")) {
			i++
			block = append(block, lines[i])
		}
		v, err := parseValue(raw, block)
		if err != nil {
			return nil, fmt.Errorf("front matter key %s: %v", k, err)
		}
		out[k] = v
	}
	return out, nil
}

func parseValue(raw string, block []string) (value, error) {
	switch {
	case raw == "|" || raw == ">" || raw == "|-" || raw == ">-":
		var parts []string
		for _, l := range block {
			parts = append(parts, strings.TrimSpace(l))
		}
		sep := "\n"
		if raw[0] == '>' {
			sep = " "
		}
		return value{s: strings.TrimSpace(strings.Join(parts, sep))}, nil
	case raw == "":
		var items []string
		for _, l := range block {
			l = strings.TrimSpace(l)
			if l == "" {
				continue
			}
			item, ok := strings.CutPrefix(l, "-")
			if !ok {
				return value{}, fmt.Errorf("unexpected line %q (want \"- item\")", l)
			}
			s, err := unquote(strings.TrimSpace(item))
			if err != nil {
				return value{}, err
			}
			items = append(items, s)
		}
		if items == nil {
			return value{}, nil
		}
		return value{items: items, isList: true}, nil
	case strings.HasPrefix(raw, "["):
		if !strings.HasSuffix(raw, "]") {
			return value{}, fmt.Errorf("list %s not closed with ]", raw)
		}
		var items []string
		for _, it := range strings.Split(raw[1:len(raw)-1], ",") {
			s, err := unquote(strings.TrimSpace(it))
			if err != nil {
				return value{}, err
			}
			items = append(items, s)
		}
		return value{items: items, isList: true}, nil
	}
	// A plain scalar may continue on indented lines (folded).
	s, err := unquote(stripComment(raw))
	if err != nil {
		return value{}, err
	}
	for _, l := range block {
		if l = strings.TrimSpace(l); l != "" {
			s += " " + l
		}
	}
	return value{s: s}, nil
}

func stripComment(s string) string {
	if s == "" || s[0] == '"' || s[0] == '\'' {
		return s
	}
	if i := strings.Index(s, " #"); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

func unquote(s string) (string, error) {
	switch {
	case len(s) >= 1 && s[0] == '"':
		u, err := strconv.Unquote(s)
		if err != nil {
			return "", fmt.Errorf("bad quoted string %s", s)
		}
		return u, nil
	case len(s) >= 1 && s[0] == '\'':
		if len(s) < 2 || s[len(s)-1] != '\'' {
			return "", fmt.Errorf("bad quoted string %s", s)
		}
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'"), nil
	}
	return s, nil
}
