package frontmatter

import (
	"bufio"
	"errors"
	"io"
	"os"
	"regexp"
	"strings"
)

// headBlock is what ReadHead reads at a time: most front matter and the
// line after it fit in one or two blocks, and a body is not read on.
const headBlock = 1 << 10

// opening is the line that starts front matter.
var opening = regexp.MustCompile(`^---` + jsSpace + `*\n$`)

// ReadHead reads the start of the file at path and no more than that: its
// front matter (as Split returns it, ErrNone for a file without) and the
// first line of text of its body, trimmed (what describes a file without
// a description). A program starts by listing skills, commands and
// agents; their bodies are read when one is used (ReadBody).
func ReadHead(path string) (fm, firstLine string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, headBlock)
	var read strings.Builder
	none := false   // the first line opens no front matter
	closed := false // a line after the first holds "---"
	for lines := 0; ; lines++ {
		line, err := r.ReadString('\n')
		if err != nil && err != io.EOF {
			return "", "", err
		}
		read.WriteString(line)
		// after is what the line holds after the front matter's end,
		// the line itself after the line of the end.
		after := line
		if i := strings.Index(line, "---"); !closed && lines > 0 && i >= 0 {
			closed, after = true, line[i+3:]
		}
		text, eof := read.String(), err == io.EOF
		none = none || lines == 0 && !opening.MatchString(text)
		if eof || none {
			// All is read, or there is no front matter: Split decides.
			fm, body, err := Split([]byte(text))
			if first, done := firstTextLine(body); done || eof {
				return fm, first, err
			}
			continue
		}
		// The front matter ends at the first "---" and the body at once
		// or after white space: what is read decides once the body's
		// first line of text is read whole. The pattern cannot match
		// before a line after the opening one holds "---", and a line
		// blank after the end cannot be the first line of text: running
		// it on every line made reading the heads quadratic.
		if !closed || strings.TrimSpace(after) == "" {
			continue
		}
		if m := find(text); m != nil {
			if first, done := firstTextLine(text[m[1]:]); done {
				return text[m[2]:m[3]], first, nil
			}
		}
	}
}

// firstTextLine is the first line of s that is not blank, trimmed, and
// whether it is whole (ends with "\n").
func firstTextLine(s string) (string, bool) {
	for s != "" {
		line, rest, whole := strings.Cut(s, "\n")
		if line = strings.TrimSpace(line); line != "" {
			return line, whole
		}
		s = rest
	}
	return "", false
}

// ReadBody reads the body of the file at path: what Split gives after the
// front matter, all of a file without.
func ReadBody(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	_, body, err := Split(data)
	if err != nil && !errors.Is(err, ErrNone) {
		return "", err
	}
	return body, nil
}
