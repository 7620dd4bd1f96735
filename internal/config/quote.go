package config

import (
	"bytes"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// unquoted reads a syntax error at line and col of data as a string value
// left bare (tool = codex): it returns the line with the value quoted
// (tool = "codex") and the column where the value begins, or ok false
// when quoting would not make the line valid TOML.
func unquoted(data []byte, line, col int) (fixed string, valueCol int, ok bool) {
	lines := bytes.Split(data, []byte("\n"))
	if line < 1 || line > len(lines) {
		return "", 0, false
	}
	text := strings.TrimRight(string(lines[line-1]), "\r")
	if col < 1 || col > len(text)+1 {
		return "", 0, false
	}
	// The value is what follows the = before the error.
	eq := strings.LastIndexByte(text[:col-1], '=')
	if eq < 0 {
		return "", 0, false
	}
	key := strings.TrimSpace(text[:eq])
	rest := text[eq+1:]
	value := rest
	if i := strings.IndexByte(value, '#'); i >= 0 {
		value = value[:i]
	}
	value = strings.TrimSpace(value)
	if key == "" || value == "" || strings.ContainsAny(value[:1], `"'[{`) {
		return "", 0, false
	}
	var quoted string
	switch {
	case !strings.ContainsAny(value, "\"\\"):
		quoted = `"` + value + `"`
	case !strings.Contains(value, "'"):
		quoted = "'" + value + "'"
	default:
		return "", 0, false
	}
	fixed = key + " = " + quoted
	var m map[string]any
	if toml.Unmarshal([]byte(fixed), &m) != nil {
		return "", 0, false
	}
	return fixed, eq + 1 + (len(rest) - len(strings.TrimLeft(rest, " \t"))) + 1, true
}
