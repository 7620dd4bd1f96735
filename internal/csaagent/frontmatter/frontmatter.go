// Package frontmatter reads the YAML front matter of Claude Code's
// markdown files (subagents, skills, commands): the subset of YAML those
// files use, "key: value" lines with quoted or plain scalars, block
// scalars (| and >) and lists (inline [a, b] or "- item" lines). A YAML
// library would accept more, but csa links none and these files need no
// more.
package frontmatter

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrNone is Split's error for a file that does not start with "---".
var ErrNone = errors.New("no front matter: the file must start with a line \"---\"")

// Split separates a file's front matter from its body. A file not starting
// with a line "---" has none (ErrNone, body the whole text); one whose
// front matter is not closed by a line "---" is an error.
func Split(data []byte) (fm, body string, err error) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	text = strings.TrimPrefix(text, "\ufeff")
	if !strings.HasPrefix(text, "---\n") {
		return "", text, ErrNone
	}
	rest := text[4:]
	end := strings.Index(rest, "\n---")
	switch {
	case strings.HasPrefix(rest, "---"):
		fm, body = "", rest[3:]
	case end < 0:
		return "", "", errUnclosed
	default:
		fm, body = rest[:end+1], rest[end+4:]
	}
	if i := strings.IndexByte(body, '\n'); i >= 0 && strings.TrimSpace(body[:i]) == "" {
		body = body[i+1:]
	} else if strings.TrimSpace(body) == "" {
		body = ""
	} else {
		return "", "", errClosingLine
	}
	return fm, body, nil
}

// Value is a front matter value: a scalar or a list.
type Value struct {
	s      string
	items  []string
	isList bool
	// isMap marks a nested mapping (a skill's hooks:), kept unread: no
	// key csa reads takes one.
	isMap bool
}

// Scalar is the value as one string; a list is an error naming key.
func (v Value) Scalar(key string) (string, error) {
	switch {
	case v.isList:
		return "", fmt.Errorf("%s must be a single value, not a list", key)
	case v.isMap:
		return "", fmt.Errorf("%s must be a single value, not a mapping", key)
	}
	return v.s, nil
}

// Bool reads true or false; "" (the key given empty) is def.
func (v Value) Bool(key string, def bool) (bool, error) {
	s, err := v.Scalar(key)
	switch {
	case err != nil:
		return false, err
	case s == "":
		return def, nil
	case s == "true":
		return true, nil
	case s == "false":
		return false, nil
	}
	return false, fmt.Errorf("%s must be true or false, not %q", key, s)
}

// List splits a comma-separated scalar ("Read, Grep") or returns the list,
// without empty items; nil when there are none.
func (v Value) List() []string {
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

// IsList reports whether the value was written as a list.
func (v Value) IsList() bool { return v.isList }

// Parse reads front matter (as Split returns it) into its keys.
func Parse(fm string) (map[string]Value, error) {
	out := map[string]Value{}
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

func parseValue(raw string, block []string) (Value, error) {
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
		return Value{s: strings.TrimSpace(strings.Join(parts, sep))}, nil
	case raw == "":
		var items []string
		for _, l := range block {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "-") && strings.Contains(l, ":") {
				return Value{isMap: true}, nil
			}
		}
		for _, l := range block {
			l = strings.TrimSpace(l)
			if l == "" {
				continue
			}
			item, ok := strings.CutPrefix(l, "-")
			if !ok {
				return Value{}, fmt.Errorf("unexpected line %q (want \"- item\")", l)
			}
			s, err := unquote(strings.TrimSpace(item))
			if err != nil {
				return Value{}, err
			}
			items = append(items, s)
		}
		if items == nil {
			return Value{}, nil
		}
		return Value{items: items, isList: true}, nil
	case strings.HasPrefix(raw, "["):
		if !strings.HasSuffix(raw, "]") {
			return Value{}, fmt.Errorf("list %s not closed with ]", raw)
		}
		var items []string
		for _, it := range strings.Split(raw[1:len(raw)-1], ",") {
			s, err := unquote(strings.TrimSpace(it))
			if err != nil {
				return Value{}, err
			}
			items = append(items, s)
		}
		return Value{items: items, isList: true}, nil
	}
	// A plain scalar may continue on indented lines (folded).
	s, err := unquote(stripComment(raw))
	if err != nil {
		return Value{}, err
	}
	for _, l := range block {
		if l = strings.TrimSpace(l); l != "" {
			s += " " + l
		}
	}
	return Value{s: s}, nil
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
