package workflow

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/csa-dev/csa/internal/sandbox"
)

// frontMatter is the TOML between the +++ lines that open a workflow file.
type frontMatter struct {
	Name        string         `toml:"name"`
	Description string         `toml:"description"`
	Tool        string         `toml:"tool"`
	Tier        string         `toml:"tier"`
	Model       string         `toml:"model"`
	Worktree    bool           `toml:"worktree"`
	Isolate     string         `toml:"isolate"`
	Variables   map[string]any `toml:"variables"`
}

const fmDelim = "+++"

// splitFrontMatter returns the front matter's text, the line its first
// TOML line is on, and the lines after it (with the line number of the
// first). A file without a leading +++ line has none.
func splitFrontMatter(p string, lines []string) (fm string, fmLine int, rest []string, restLine int, err error) {
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != fmDelim {
		if len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
			return "", 0, nil, 0, errorf(Pos{p, 1}, "front matter is TOML between +++ lines, not ---")
		}
		return "", 0, lines, 1, nil
	}
	for i := 1; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == fmDelim {
			return strings.Join(lines[1:i], "\n"), 2, lines[i+1:], i + 2, nil
		}
	}
	return "", 0, nil, 0, errorf(Pos{p, 1}, "front matter opened with +++ is never closed")
}

// decodeFrontMatter reads the front matter strictly: an unknown key is an
// error at its line.
func decodeFrontMatter(p, text string, first int) (*frontMatter, error) {
	var fm frontMatter
	dec := toml.NewDecoder(bytes.NewReader([]byte(text)))
	dec.DisallowUnknownFields()
	err := dec.Decode(&fm)
	var missing *toml.StrictMissingError
	var de *toml.DecodeError
	switch {
	case err == nil:
	case errors.As(err, &missing):
		e := &missing.Errors[0]
		line, _ := e.Position()
		return nil, errorf(Pos{p, first + line - 1}, "unknown front matter key %q (known: name, description, tool, tier, model, worktree, isolate, variables)", strings.Join(e.Key(), "."))
	case errors.As(err, &de):
		line, _ := de.Position()
		return nil, errorf(Pos{p, first + line - 1}, "front matter: %s", strings.TrimPrefix(de.Error(), "toml: "))
	default:
		return nil, errorf(Pos{p, first}, "front matter: %v", err)
	}
	if fm.Isolate != "" {
		if _, err := sandbox.ParseIsolate(fm.Isolate); err != nil {
			return nil, errorf(Pos{p, first + keyLine0(text, "isolate")}, "front matter isolate: %v", err)
		}
	}
	return &fm, nil
}

// keyLine0 is the line, from 0, of a top-level key of the front matter
// text: the first line before any [table] that sets it (0 if none does).
func keyLine0(text, key string) int {
	for i, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "[") {
			break
		}
		if rest, ok := strings.CutPrefix(l, key); ok && strings.HasPrefix(strings.TrimSpace(rest), "=") {
			return i
		}
	}
	return 0
}

// variables turns the front matter's defaults into strings: TOML strings,
// numbers and booleans are allowed, lists become one item a line (a FOR's
// list).
func (fm *frontMatter) variables(p string, line int) (map[string]string, error) {
	vars := map[string]string{}
	for k, v := range fm.Variables {
		if !nameRe.MatchString(k) || k == "steps" {
			return nil, errorf(Pos{p, line}, "variable name %q: want letters, digits and _ (and not \"steps\")", k)
		}
		s, err := scalar(v)
		if err != nil {
			return nil, errorf(Pos{p, line}, "variable %s: %v", k, err)
		}
		vars[k] = s
	}
	return vars, nil
}

func scalar(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case int64, float64, bool:
		return fmt.Sprint(v), nil
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			s, err := scalar(x)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return strings.Join(parts, "\n"), nil
	}
	return "", fmt.Errorf("a default must be a string, number, boolean or list, not %T", v)
}
