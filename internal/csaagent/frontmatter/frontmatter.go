// Package frontmatter reads the YAML front matter of Claude Code's
// markdown files (subagents, skills, commands) as Claude Code 2.1 reads
// it: cut off by its own pattern, parsed as YAML 1.2 (Bun's parser there,
// go.yaml.in/yaml/v3 here), retried once with unquoted values quoted, and
// read as no keys at all when that fails too. Plain "key: words" lines,
// most files' whole front matter, are read as YAML reads them without
// the parser (simpleKeys): it takes 30 µs a file, and a start reads
// dozens.
package frontmatter

import (
	"errors"
	"regexp"
	"strings"
)

// ErrNone is Split's error for a file that does not start with front
// matter: a line "---", then text up to a later "---".
var ErrNone = errors.New("no front matter: the file must start with a line \"---\" and the front matter end with \"---\"")

// jsSpace is JavaScript's \s, which Claude Code's patterns use.
const jsSpace = `[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]`

// pattern is Claude Code's, quirks included: the front matter ends at the
// first "---" after the opening line, wherever it stands on its line, and
// the white space after that is no part of the body.
var pattern = regexp.MustCompile(`^---` + jsSpace + `*\n((?s:.*?))---` + jsSpace + `*\n?`)

// The pattern's parts, each stopping at the first character it cannot
// take: the opening line and the white space after the end. Run whole,
// its lazy middle had Go's backtracker try "---" at every byte of the
// front matter, most of reading a file's head.
var (
	openingLine = regexp.MustCompile(`^---` + jsSpace + `*\n`)
	spaceRun    = regexp.MustCompile(`^` + jsSpace + `*`)
)

// find is pattern.FindStringSubmatchIndex(text): the longest opening
// line, the front matter up to the first "---" after it, and all the
// white space after that (TestFindIsThePattern).
func find(text string) []int {
	open := openingLine.FindStringIndex(text)
	if open == nil {
		return nil
	}
	end := strings.Index(text[open[1]:], "---")
	if end < 0 {
		return nil
	}
	end += open[1]
	space := spaceRun.FindStringIndex(text[end+3:])
	return []int{0, end + 3 + space[1], open[1], end}
}

// Split separates a file's front matter from its body. A file not
// matching the pattern has none (ErrNone, body the whole text). The body's
// "\r\n" are read as "\n"; the front matter is kept as written.
func Split(data []byte) (fm, body string, err error) {
	text := string(data)
	m := find(text)
	if m == nil {
		return "", crlf(text), ErrNone
	}
	return text[m[2]:m[3]], crlf(text[m[1]:]), nil
}

func crlf(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }
