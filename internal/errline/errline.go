// Package errline is csa's JSON error line: what a csa command writes on
// stderr when it fails under --json ({"error":{"code","message"}}), and
// what a csa that ran another csa as a child reads back from it. The shape
// is defined here once, for the writer and its readers.
package errline

import (
	"encoding/json"
	"strings"
)

type line struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Marshal is the line (without its newline) of an error with code.
func Marshal(code, message string) []byte {
	var l line
	l.Error.Code, l.Error.Message = code, message
	b, _ := json.Marshal(l)
	return b
}

// Parse reads a child csa's stderr: its last JSON error line's code and
// message, else no code and the last line (or "no answer").
func Parse(stderr string) (code, message string) {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		var l line
		if json.Unmarshal([]byte(lines[i]), &l) == nil && l.Error.Message != "" {
			return l.Error.Code, l.Error.Message
		}
	}
	if last := strings.TrimSpace(lines[len(lines)-1]); last != "" {
		return "", last
	}
	return "", "no answer"
}
