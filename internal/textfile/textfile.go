// Package textfile finds where a file that should be UTF-8 text is not:
// the batch, plan and workflow files csa reads. Their parsers would
// otherwise read a stray byte as U+FFFD (JSON), as a misplaced error
// (TOML) or as prose (markdown), so each refuses it first, at its line.
package textfile

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// NotText is the first place that shows data is not text.
type NotText struct {
	Line  int  // 1-based line
	Col   int  // 1-based byte of the line
	Value byte // the byte found there
}

// Error says what was found, at which byte of the line; the caller adds
// the file and line.
func (n *NotText) Error() string {
	if n.Value == 0 {
		return fmt.Sprintf("not text: byte %d of the line is a NUL", n.Col)
	}
	return fmt.Sprintf("not text: byte %d of the line (0x%02x) is not UTF-8", n.Col, n.Value)
}

// Check returns nil when data is UTF-8 without NUL bytes, else the first
// byte that is not. Other control characters are text a prompt may hold.
func Check(data []byte) *NotText {
	if utf8.Valid(data) && bytes.IndexByte(data, 0) < 0 {
		return nil
	}
	for line := 1; len(data) > 0; line++ {
		l, rest, _ := bytes.Cut(data, []byte("\n"))
		for i := 0; i < len(l); {
			r, size := utf8.DecodeRune(l[i:])
			if (r == utf8.RuneError && size == 1) || r == 0 {
				return &NotText{Line: line, Col: i + 1, Value: l[i]}
			}
			i += size
		}
		data = rest
	}
	return nil
}
