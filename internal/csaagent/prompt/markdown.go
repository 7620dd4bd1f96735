package prompt

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/frontmatter"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// What Claude Code does with a memory file's text, so that the model gets
// the same content from csa-agent: front matter is cut off (a rules file's
// paths: makes it conditional), block HTML comments are dropped, and
// "@path" imports are found outside code spans, code blocks and HTML.

// frontMatter is Claude Code's own pattern, quirks included (the closing
// "---" need not start a line).
var frontMatter = regexp.MustCompile(`^---\s*\n((?s:.*?))---\s*\n?`)

// importRef is an "@path" at the start of a text run or after white space;
// "\ " escapes a space in the path.
var importRef = regexp.MustCompile(`(?:^|\s)@((?:[^\s\\]|\\ )+)`)

var htmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)

// markdown is CommonMark without GitHub's extensions, as Claude Code lexes
// memory files.
var markdown = goldmark.New()

// splitFrontMatter returns the body and the paths: patterns that scope
// the file to some paths (a conditional rule); nil when it has none, or
// only "**", as Claude Code reads them ("dir/**" is "dir").
func splitFrontMatter(s string) (body string, globs []string) {
	m := frontMatter.FindStringSubmatchIndex(s)
	if m == nil {
		return s, nil
	}
	body = s[m[1]:]
	fields, err := frontmatter.Parse(s[m[2]:m[3]])
	if err != nil {
		return body, nil
	}
	all := true // every pattern is "**": the rule applies everywhere
	for _, p := range fields["paths"].List() {
		p = strings.TrimSuffix(p, "/**")
		if p == "" {
			continue
		}
		globs = append(globs, p)
		all = all && p == "**"
	}
	if all {
		return body, nil
	}
	return body, globs
}

// parseMemory returns the text the model gets (block HTML comments
// removed) and the files it imports, resolved against dir ("~/" against
// home; none such when home is ""), in order of first mention.
func parseMemory(body, dir, home string) (content string, imports []string) {
	src := []byte(body)
	doc := markdown.Parser().Parse(text.NewReader(src))
	var refs []string
	content = body
	if strings.Contains(body, "<!--") {
		content = dropComments(doc, src)
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindCodeSpan, ast.KindCodeBlock, ast.KindFencedCodeBlock, ast.KindRawHTML, ast.KindAutoLink:
			return ast.WalkSkipChildren, nil
		case ast.KindHTMLBlock:
			if raw := blockText(n, src); isComment(raw) {
				refs = append(refs, findRefs(htmlComment.ReplaceAllString(raw, ""))...)
			}
			return ast.WalkSkipChildren, nil
		}
		refs = append(refs, findRefs(textRuns(n, src)...)...)
		return ast.WalkContinue, nil
	})
	seen := map[string]bool{}
	for _, r := range refs {
		p, ok := resolveImport(r, dir, home)
		if ok && !seen[p] {
			seen[p] = true
			imports = append(imports, p)
		}
	}
	return content, imports
}

// textRuns joins each run of adjacent Text children of n into one string,
// as a markdown lexer's text token would hold it.
func textRuns(n ast.Node, src []byte) []string {
	var runs []string
	start, stop := -1, -1
	flush := func() {
		if start >= 0 {
			runs = append(runs, string(src[start:stop]))
		}
		start = -1
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		t, ok := c.(*ast.Text)
		if !ok {
			flush()
			continue
		}
		if start < 0 {
			start = t.Segment.Start
		}
		stop = t.Segment.Stop
		if t.SoftLineBreak() || t.HardLineBreak() {
			// The line break is in the source between this segment and the next.
			if next, ok := c.NextSibling().(*ast.Text); ok {
				stop = next.Segment.Start
			}
		}
	}
	flush()
	return runs
}

func findRefs(texts ...string) []string {
	var out []string
	for _, s := range texts {
		for _, m := range importRef.FindAllStringSubmatch(s, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// resolveImport applies Claude Code's rules to a reference: the "#..."
// part is cut, "\ " is a space, and only ./, ~/, absolute paths and names
// starting with a letter, digit, '.', '_' or '-' are paths.
func resolveImport(ref, dir, home string) (string, bool) {
	if i := strings.IndexByte(ref, '#'); i >= 0 {
		ref = ref[:i]
	}
	ref = strings.TrimSpace(strings.ReplaceAll(ref, `\ `, " "))
	switch {
	case ref == "" || ref == "/":
		return "", false
	case strings.HasPrefix(ref, "~/"):
		if home == "" {
			return "", false
		}
		return filepath.Join(home, ref[2:]), true
	case filepath.IsAbs(ref):
		return filepath.Clean(ref), true
	case strings.HasPrefix(ref, "./") || isPathStart(ref[0]):
		return filepath.Join(dir, ref), true
	}
	return "", false
}

func isPathStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

func isComment(raw string) bool {
	t := strings.TrimLeft(raw, " \t\r\n")
	return strings.HasPrefix(t, "<!--") && strings.Contains(t, "-->")
}

// blockText is an HTML block's source, its closing line included.
func blockText(n ast.Node, src []byte) string {
	start, stop, ok := blockSpan(n)
	if !ok {
		return ""
	}
	return string(src[start:stop])
}

func blockSpan(n ast.Node) (start, stop int, ok bool) {
	lines := n.Lines()
	if lines.Len() == 0 {
		return 0, 0, false
	}
	start, stop = lines.At(0).Start, lines.At(lines.Len()-1).Stop
	if h, isHTML := n.(*ast.HTMLBlock); isHTML && h.HasClosure() {
		stop = h.ClosureLine.Stop
	}
	return start, stop, true
}

// dropComments removes the comments of top-level HTML comment blocks,
// keeping anything else on their lines.
func dropComments(doc ast.Node, src []byte) string {
	var b strings.Builder
	last := 0
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if n.Kind() != ast.KindHTMLBlock {
			continue
		}
		start, stop, ok := blockSpan(n)
		if !ok || !isComment(string(src[start:stop])) {
			continue
		}
		b.Write(src[last:start])
		// A block of nothing but comments goes, white space and all.
		rest := htmlComment.ReplaceAllString(string(src[start:stop]), "")
		if strings.TrimSpace(rest) != "" {
			b.WriteString(rest)
		} else {
			stop = afterBlankLines(src, stop)
		}
		last = stop
	}
	b.Write(src[last:])
	return b.String()
}

// afterBlankLines skips the blank lines from i on: a markdown lexer counts
// them into the block before, so they go with a dropped comment.
func afterBlankLines(src []byte, i int) int {
	for i < len(src) {
		nl := bytes.IndexByte(src[i:], '\n')
		if nl < 0 || len(bytes.TrimSpace(src[i:i+nl])) != 0 {
			return i
		}
		i += nl + 1
	}
	return i
}
