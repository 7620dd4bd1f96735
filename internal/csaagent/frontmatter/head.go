package frontmatter

import (
	"bufio"
	"errors"
	"io"
	"os"
	"strings"
)

// Errors of Split, ReadHead and ReadBody alike.
var (
	errUnclosed    = errors.New("front matter not closed: no line \"---\" after it")
	errClosingLine = errors.New("front matter not closed: the closing \"---\" must be a line of its own")
)

// headBlock is what ReadHead reads at a time: most front matter and the
// line after it fit in one or two blocks, and a body is not read on.
const headBlock = 1 << 10

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
	r := lineReader{r: bufio.NewReaderSize(f, headBlock)}
	line := strings.TrimPrefix(r.next(), "\ufeff")
	if line != "---\n" {
		for strings.TrimSpace(line) == "" && !r.eof {
			line = r.next()
		}
		if r.err != nil {
			return "", "", r.err
		}
		return "", strings.TrimSpace(line), ErrNone
	}
	var b strings.Builder
	for {
		line = r.next()
		if rest, ok := strings.CutPrefix(line, "---"); ok {
			if strings.TrimSpace(rest) != "" {
				return "", "", errClosingLine
			}
			break
		}
		if r.err != nil {
			return "", "", r.err
		}
		if r.eof {
			return "", "", errUnclosed
		}
		b.WriteString(line)
	}
	for line = ""; strings.TrimSpace(line) == "" && !r.eof; {
		line = r.next()
	}
	if r.err != nil {
		return "", "", r.err
	}
	return b.String(), strings.TrimSpace(line), nil
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

// lineReader reads lines with "\r\n" read as "\n", as Split reads them.
type lineReader struct {
	r   *bufio.Reader
	eof bool
	err error
}

// next is the next line with its "\n" (none at the end of the file).
func (l *lineReader) next() string {
	s, err := l.r.ReadString('\n')
	if err != nil {
		l.eof = true
		if err != io.EOF {
			l.err = err
		}
	}
	if t, ok := strings.CutSuffix(s, "\r\n"); ok {
		s = t + "\n"
	}
	return s
}
