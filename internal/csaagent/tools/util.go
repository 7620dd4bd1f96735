// Package tools holds csa-agent's built-in tools, one file each. Names and
// input fields are Claude Code's, so a model's habits carry over.
package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// MaxOutput caps what one call returns to the model, in bytes.
const MaxOutput = 30000

// base gives the tools their fixed parts. In is the tool's input: Run
// decodes a call into it (parse) and the model is shown its schema,
// derived from the type (tool.SchemaOf), never written by hand.
type base[In any] struct{ name, desc string }

func (b base[In]) Name() string            { return b.name }
func (b base[In]) Description() string     { return b.desc }
func (b base[In]) Schema() json.RawMessage { return tool.SchemaOf[In]() }

// parse decodes a call's input; a malformed one is the model's error,
// returned as the result with ok false.
func (base[In]) parse(input json.RawMessage) (in In, bad tool.Result, ok bool) {
	if err := tool.Decode(input, &in); err != nil {
		return in, tool.Errorf("invalid input: %v", err), false
	}
	return in, tool.Result{}, true
}

// field is one string field of an input, for Subject; "" when absent.
func field(input json.RawMessage, name string) string {
	var m map[string]any
	if json.Unmarshal(input, &m) != nil {
		return ""
	}
	s, _ := m[name].(string)
	return s
}

// isBinary sniffs the head of a file: a NUL byte or mostly invalid UTF-8.
func isBinary(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if len(head) == 0 {
		return false
	}
	bad := 0
	for len(head) > 0 {
		r, n := utf8.DecodeRune(head)
		if r == utf8.RuneError && n == 1 && len(head) >= utf8.UTFMax {
			bad++
		}
		head = head[n:]
	}
	return bad > 8
}

// truncate caps s at max bytes on a rune boundary, saying how much went.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n... [truncated: %d more bytes]", len(s)-cut)
}

// plural is "1 file" / "2 files".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// lines splits text into lines without their terminators.
func lines(text string) []string {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}
