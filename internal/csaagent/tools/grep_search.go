package tools

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
)

// grepper accumulates one search's output.
type grepper struct {
	in                   grepInput
	re                   *regexp.Regexp
	mode                 string
	lineNums             bool
	before, after        int
	out                  []string // content and count lines
	files                []fileHit
	size                 int
	truncated, headLimit bool
}

type fileHit struct {
	path string
	mod  time.Time
}

func (g *grepper) full() bool { return g.truncated || g.headLimit }

// emit adds one output line, honouring head_limit and the output cap.
func (g *grepper) emit(s string) {
	if g.in.HeadLimit > 0 && len(g.out) >= g.in.HeadLimit {
		g.headLimit = true
		return
	}
	if g.size+len(s)+1 > MaxOutput {
		g.truncated = true
		return
	}
	g.out = append(g.out, s)
	g.size += len(s) + 1
}

func (g *grepper) file(p string) {
	fi, err := os.Stat(p)
	if err != nil || fi.Size() > grepMaxFile {
		return
	}
	data, err := os.ReadFile(p)
	if err != nil || isBinary(data[:min(len(data), 8000)]) {
		return
	}
	if g.in.Multiline {
		g.multiline(p, fi.ModTime(), data)
		return
	}
	switch g.mode {
	case "files_with_matches":
		if g.re.Match(data) {
			g.files = append(g.files, fileHit{p, fi.ModTime()})
		}
	case "count":
		n := 0
		sc := scanner(data)
		for sc.Scan() {
			if g.re.Match(sc.Bytes()) {
				n++
			}
		}
		if n > 0 {
			g.emit(fmt.Sprintf("%s:%d", p, n))
		}
	case "content":
		g.content(p, lines(string(data)), nil)
	}
}

// multiline matches the whole file; content shows every line a match spans.
func (g *grepper) multiline(p string, mod time.Time, data []byte) {
	locs := g.re.FindAllIndex(data, -1)
	if len(locs) == 0 {
		return
	}
	switch g.mode {
	case "files_with_matches":
		g.files = append(g.files, fileHit{p, mod})
	case "count":
		g.emit(fmt.Sprintf("%s:%d", p, len(locs)))
	case "content":
		hit := map[int]bool{}
		for _, l := range locs {
			first := bytes.Count(data[:l[0]], []byte("\n"))
			last := bytes.Count(data[:max(l[0], l[1]-1)], []byte("\n"))
			for i := first; i <= last; i++ {
				hit[i] = true
			}
		}
		g.content(p, lines(string(data)), hit)
	}
}

// content prints matching lines (hit, or those the regexp matches) with
// their context, rg style: path:n:line for matches, path-n-line for
// context, "--" between separate groups.
func (g *grepper) content(p string, ls []string, hit map[int]bool) {
	isHit := func(i int) bool {
		if hit != nil {
			return hit[i]
		}
		return g.re.MatchString(ls[i])
	}
	last := -1 // last line printed
	for i := range ls {
		if !isHit(i) {
			continue
		}
		from := max(i-g.before, last+1)
		if last >= 0 && from > last+1 && (g.before > 0 || g.after > 0) {
			g.emit("--")
		}
		for j := from; j < i; j++ {
			g.emit(g.format(p, j, ls[j], '-'))
		}
		g.emit(g.format(p, i, ls[i], ':'))
		last = i
		// After-context runs until a line that is itself a hit.
		for j := i + 1; j <= i+g.after && j < len(ls) && !isHit(j); j++ {
			g.emit(g.format(p, j, ls[j], '-'))
			last = j
		}
		if g.full() {
			return
		}
	}
}

func (g *grepper) format(p string, i int, line string, sep byte) string {
	line = truncate(line, readMaxLineLen)
	if g.lineNums {
		return fmt.Sprintf("%s%c%d%c%s", p, sep, i+1, sep, line)
	}
	return fmt.Sprintf("%s%c%s", p, sep, line)
}

func (g *grepper) result() string {
	if g.mode == "files_with_matches" {
		if len(g.files) == 0 {
			return "No files found"
		}
		// Newest first, as Claude Code lists them.
		sort.SliceStable(g.files, func(i, j int) bool { return g.files[i].mod.After(g.files[j].mod) })
		n := len(g.files)
		limit := grepMaxFiles
		if g.in.HeadLimit > 0 && g.in.HeadLimit < limit {
			limit = g.in.HeadLimit
		}
		var b strings.Builder
		fmt.Fprintf(&b, "Found %s\n", plural(n, "file"))
		for i, f := range g.files {
			if i == limit {
				fmt.Fprintf(&b, "(%d more not shown)\n", n-limit)
				break
			}
			b.WriteString(f.path + "\n")
		}
		return b.String()
	}
	if len(g.out) == 0 {
		return "No matches found"
	}
	s := strings.Join(g.out, "\n") + "\n"
	if g.truncated {
		s += fmt.Sprintf("[Output truncated at %d bytes: narrow the search or use head_limit.]\n", MaxOutput)
	} else if g.headLimit {
		s += fmt.Sprintf("[Showing the first %d lines (head_limit).]\n", g.in.HeadLimit)
	}
	return s
}

func scanner(data []byte) *bufio.Scanner {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), grepMaxFile+1)
	return sc
}
