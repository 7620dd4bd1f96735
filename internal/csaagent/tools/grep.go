package tools

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// Grep limits: files bigger than grepMaxFile are skipped (generated or
// data files), and files_with_matches lists at most grepMaxFiles.
const (
	grepMaxFile  = 10 << 20
	grepMaxFiles = 1000
)

// Grep searches file contents with a regular expression.
type Grep struct{ base[grepInput] }

// NewGrep is the Grep tool.
func NewGrep() *Grep {
	return &Grep{base[grepInput]{"Grep", grepDesc}}
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
	Pattern    string `json:"pattern" jsonschema:"The regular expression pattern to search for in file contents (Go RE2 syntax)"`
	Path       string `json:"path,omitempty" jsonschema:"File or directory to search in. Defaults to current working directory."`
	Glob       string `json:"glob,omitempty" jsonschema:"Glob pattern to filter files (e.g. \"*.js\", \"*.{ts,tsx}\", \"src/**/*.go\")"`
	Type       string `json:"type,omitempty" jsonschema:"File type to search (e.g. go, js, py, rust, java). More efficient than glob for standard file types."`
	OutputMode string `json:"output_mode,omitempty" jsonschema:"Output mode: \"content\" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), \"files_with_matches\" shows file paths (supports head_limit), \"count\" shows match counts (supports head_limit). Defaults to \"files_with_matches\"." jsonschema_extras:"enum=content|files_with_matches|count"`
	I          bool   `json:"-i,omitempty" jsonschema:"Case insensitive search"`
	N          *bool  `json:"-n,omitempty" jsonschema:"Show line numbers in output. Requires output_mode: \"content\", ignored otherwise. Defaults to true."` // nil: the default
	A          int    `json:"-A,omitempty" jsonschema:"Number of lines to show after each match. Requires output_mode: \"content\", ignored otherwise." jsonschema_extras:"minimum=0"`
	B          int    `json:"-B,omitempty" jsonschema:"Number of lines to show before each match. Requires output_mode: \"content\", ignored otherwise." jsonschema_extras:"minimum=0"`
	C          int    `json:"-C,omitempty" jsonschema:"Number of lines to show before and after each match. Requires output_mode: \"content\", ignored otherwise." jsonschema_extras:"minimum=0"`
	Multiline  bool   `json:"multiline,omitempty" jsonschema:"Enable multiline mode where . matches newlines and patterns can span lines. Default: false."`
	HeadLimit  int    `json:"head_limit,omitempty" jsonschema:"Limit output to first N lines/entries. Works across all output modes. Defaults to no limit beyond the output cap." jsonschema_extras:"minimum=0"`
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

func (gr *Grep) Run(ctx context.Context, env *tool.Env, input json.RawMessage) (tool.Result, error) {
	in, bad, ok := gr.parse(input)
	if !ok {
		return bad, nil
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
	out := g.result()
	return tool.Result{Output: out, Response: g.response(env.Cwd)}, nil
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
