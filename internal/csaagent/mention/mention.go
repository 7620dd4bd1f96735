// Package mention finds the files a prompt mentions with "@path", as
// Claude Code does: a custom command's expanded text (or a typed prompt)
// naming @src/app.go gets that file's content attached, so the model has
// it without reading it first.
package mention

import (
	"regexp"
	"strconv"
	"strings"
)

// Ref is one mentioned file: its path as written and, from a "#L10-20"
// suffix, the lines wanted (0: from the start, to the end).
type Ref struct {
	Path       string
	Start, End int
}

// Claude Code's patterns: "@" at the start or after a space (or a CJK
// full stop, comma, question or exclamation mark), then a quoted path or
// a path up to a word boundary (so "@notes.md," is notes.md).
var (
	quoted = regexp.MustCompile(`(?:^|[\s\x{3002}\x{3001}\x{FF1F}\x{FF01}])@"([^"]+)"`)
	bare   = regexp.MustCompile(`(?:^|[\s\x{3002}\x{3001}\x{FF1F}\x{FF01}])@(\S+)\b`)
	lines  = regexp.MustCompile(`^([^#]+)(?:#L(\d+)(?:-(\d+))?)?(?:#[^#]*)?$`)
)

// Files lists the files text mentions, each once, the quoted ones first,
// in Claude Code's order. `@"name (agent)"` names an agent, not a file.
func Files(text string) []Ref {
	var paths []string
	for _, m := range quoted.FindAllStringSubmatch(text, -1) {
		if !strings.HasSuffix(m[1], " (agent)") {
			paths = append(paths, m[1])
		}
	}
	for _, m := range bare.FindAllStringSubmatch(text, -1) {
		if !strings.HasPrefix(m[1], `"`) {
			paths = append(paths, m[1])
		}
	}
	var out []Ref
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, parse(p))
	}
	return out
}

// parse splits "path#L10-20" into the path and its lines.
func parse(s string) Ref {
	m := lines.FindStringSubmatch(s)
	if m == nil {
		return Ref{Path: s}
	}
	r := Ref{Path: m[1]}
	if m[2] != "" {
		r.Start, _ = strconv.Atoi(m[2])
		r.End = r.Start
		if m[3] != "" {
			r.End, _ = strconv.Atoi(m[3])
		}
	}
	return r
}
