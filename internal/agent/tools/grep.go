package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/csa-dev/csa/internal/agent/tool"
)

// Grep limits: files bigger than grepMaxFile are skipped (generated or
// data files), and files_with_matches lists at most grepMaxFiles.
const (
	grepMaxFile  = 10 << 20
	grepMaxFiles = 1000
)

// Grep searches file contents with a regular expression.
type Grep struct{ base }

// NewGrep is the Grep tool.
func NewGrep() *Grep {
	return &Grep{base{"Grep", grepDesc, schema(`
"pattern":{"type":"string","description":"The regular expression pattern to search for in file contents (Go RE2 syntax)"},
"path":{"type":"string","description":"File or directory to search in. Defaults to current working directory."},
"glob":{"type":"string","description":"Glob pattern to filter files (e.g. \"*.js\", \"*.{ts,tsx}\", \"src/**/*.go\")"},
"type":{"type":"string","description":"File type to search (e.g. go, js, py, rust, java). More efficient than glob for standard file types."},
"output_mode":{"type":"string","enum":["content","files_with_matches","count"],"description":"Output mode: \"content\" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), \"files_with_matches\" shows file paths (supports head_limit), \"count\" shows match counts (supports head_limit). Defaults to \"files_with_matches\"."},
"-i":{"type":"boolean","description":"Case insensitive search"},
"-n":{"type":"boolean","description":"Show line numbers in output. Requires output_mode: \"content\", ignored otherwise. Defaults to true."},
"-A":{"type":"integer","minimum":0,"description":"Number of lines to show after each match. Requires output_mode: \"content\", ignored otherwise."},
"-B":{"type":"integer","minimum":0,"description":"Number of lines to show before each match. Requires output_mode: \"content\", ignored otherwise."},
"-C":{"type":"integer","minimum":0,"description":"Number of lines to show before and after each match. Requires output_mode: \"content\", ignored otherwise."},
"multiline":{"type":"boolean","description":"Enable multiline mode where . matches newlines and patterns can span lines. Default: false."},
"head_limit":{"type":"integer","minimum":0,"description":"Limit output to first N lines/entries. Works across all output modes. Defaults to no limit beyond the output cap."}`,
		"pattern")}}
}

const grepDesc = `A powerful search tool for file contents.

Usage:
- ALWAYS use Grep for search tasks. NEVER invoke grep or rg as a Bash command.
- Supports full regular expression syntax (Go RE2: e.g. "log.*Error", "func\\s+\\w+"; no backreferences or lookaround)
- Filter files with the glob parameter (e.g. "*.js", "**/*.tsx") or the type parameter (e.g. "js", "py", "rust", "go")
- Output modes: "content" shows matching lines, "files_with_matches" shows only file paths, newest first (default), "count" shows match counts
- Skips .git and node_modules directories and binary files
- Use the Task tool for open-ended searches requiring multiple rounds
- Pattern syntax: literal braces need escaping (use ` + "`interface\\{\\}`" + ` to find ` + "`interface{}`" + ` in Go code)
- Multiline matching: by default patterns match within single lines only. For cross-line patterns, use multiline: true
- Output is capped; use head_limit, a narrower path, glob or type when results are large`

func (*Grep) ConcurrencySafe(json.RawMessage) bool { return true }
func (*Grep) ReadOnly(json.RawMessage) bool        { return true }
func (*Grep) Subject(in json.RawMessage) string    { return field(in, "path") }

type grepInput struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Glob       string `json:"glob"`
	Type       string `json:"type"`
	OutputMode string `json:"output_mode"`
	I          bool   `json:"-i"`
	N          *bool  `json:"-n"`
	A          int    `json:"-A"`
	B          int    `json:"-B"`
	C          int    `json:"-C"`
	Multiline  bool   `json:"multiline"`
	HeadLimit  int    `json:"head_limit"`
}

// fileTypes are ripgrep's commonest --type names, as extensions (or names).
var fileTypes = map[string][]string{
	"go": {".go"}, "js": {".js", ".jsx", ".mjs", ".cjs"}, "ts": {".ts", ".tsx", ".mts", ".cts"},
	"py": {".py", ".pyi"}, "rust": {".rs"}, "java": {".java"}, "c": {".c", ".h"},
	"cpp": {".cpp", ".cc", ".cxx", ".hpp", ".hh", ".hxx", ".h"}, "cs": {".cs"}, "rb": {".rb"},
	"php": {".php"}, "swift": {".swift"}, "kotlin": {".kt", ".kts"}, "scala": {".scala"},
	"sh": {".sh", ".bash", ".zsh"}, "md": {".md", ".markdown"}, "markdown": {".md", ".markdown"},
	"json": {".json"}, "yaml": {".yaml", ".yml"}, "toml": {".toml"}, "xml": {".xml"},
	"html": {".html", ".htm"}, "css": {".css", ".scss", ".sass", ".less"}, "sql": {".sql"},
	"proto": {".proto"}, "lua": {".lua"}, "txt": {".txt"}, "make": {"Makefile", "makefile", "GNUmakefile", ".mk"},
	"docker": {"Dockerfile", ".dockerfile"}, "vue": {".vue"}, "svelte": {".svelte"}, "zig": {".zig"},
	"elixir": {".ex", ".exs"}, "erlang": {".erl", ".hrl"}, "haskell": {".hs"}, "ocaml": {".ml", ".mli"},
	"dart": {".dart"}, "r": {".r", ".R"}, "tf": {".tf", ".tfvars"}, "nix": {".nix"},
}

func (*Grep) Run(ctx context.Context, env *tool.Env, input json.RawMessage) (tool.Result, error) {
	var in grepInput
	if r, ok := decode(input, &in); !ok {
		return r, nil
	}
	expr := in.Pattern
	if in.Multiline {
		expr = "(?s)" + expr
	}
	if in.I {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return tool.Errorf("invalid pattern: %v", err), nil
	}
	mode := in.OutputMode
	if mode == "" {
		mode = "files_with_matches"
	}
	if mode != "content" && mode != "files_with_matches" && mode != "count" {
		return tool.Errorf("output_mode must be content, files_with_matches or count, not %q", mode), nil
	}
	var exts []string
	if in.Type != "" {
		if exts = fileTypes[in.Type]; exts == nil {
			return tool.Errorf("unknown type %q (known: %s)", in.Type, strings.Join(typeNames(), ", ")), nil
		}
	}
	if in.Glob != "" && !doublestar.ValidatePattern(in.Glob) {
		return tool.Errorf("invalid glob %q", in.Glob), nil
	}
	dir := in.Path
	if dir == "" {
		dir = env.Cwd
	}
	root, err := env.Resolve(dir)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	if _, err := os.Stat(root); err != nil {
		return tool.Errorf("cannot search %s: %v", root, unwrapPath(err)), nil
	}
	g := &grepper{in: in, re: re, mode: mode}
	if in.N == nil || *in.N {
		g.lineNums = true
	}
	g.before, g.after = max(in.B, in.C), max(in.A, in.C)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			return nil // unreadable entries are skipped, as rg does
		}
		if d.IsDir() {
			if p != root && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !matchFile(root, p, in.Glob, exts) {
			return nil
		}
		g.file(p)
		if g.full() {
			return fs.SkipAll
		}
		return nil
	})
	if ctx.Err() != nil {
		return tool.Errorf("interrupted"), nil
	}
	if err != nil {
		return tool.Errorf("search %s: %v", root, err), nil
	}
	return tool.Result{Output: g.result()}, nil
}

func typeNames() []string {
	var out []string
	for k := range fileTypes {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// matchFile applies the glob (to the base name when it has no slash, else
// to the path below root) and the type's extensions.
func matchFile(root, p, glob string, exts []string) bool {
	if glob != "" {
		name := filepath.Base(p)
		if strings.Contains(glob, "/") {
			rel, _ := filepath.Rel(root, p)
			name = filepath.ToSlash(rel)
		}
		if ok, _ := doublestar.Match(glob, name); !ok {
			return false
		}
	}
	if exts == nil {
		return true
	}
	base := filepath.Base(p)
	for _, e := range exts {
		if strings.HasPrefix(e, ".") && strings.HasSuffix(base, e) || base == e {
			return true
		}
	}
	return false
}

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
