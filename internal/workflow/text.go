package workflow

import (
	"bytes"
	"unicode/utf8"
)

// checkText refuses what cannot be a markdown file, at the first line that
// shows it: bytes that are not UTF-8, and NUL bytes. Random or binary data
// would otherwise read as prose before the first heading. Other control
// characters are let through: they are text a prompt may hold.
func checkText(path string, data []byte) error {
	if utf8.Valid(data) && bytes.IndexByte(data, 0) < 0 {
		return nil
	}
	for line := 1; len(data) > 0; line++ {
		l, rest, _ := bytes.Cut(data, []byte("\n"))
		for i := 0; i < len(l); {
			r, size := utf8.DecodeRune(l[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				return errorf(Pos{path, line}, "not text: byte %d of the line (0x%02x) is not UTF-8 (a workflow is a UTF-8 markdown file)", i+1, l[i])
			case r == 0:
				return errorf(Pos{path, line}, "not text: byte %d of the line is a NUL (a workflow is a UTF-8 markdown file)", i+1)
			}
			i += size
		}
		data = rest
	}
	return nil
}
