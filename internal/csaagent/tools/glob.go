package tools

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// globMax caps the paths Glob returns.
const globMax = 100

// Glob finds files by name pattern.
type Glob struct{ base[globInput] }

// NewGlob is the Glob tool.
func NewGlob() *Glob {
	return &Glob{base[globInput]{"Glob", globDesc}}
}

type globInput struct {
	Pattern string `json:"pattern" jsonschema:"The glob pattern to match files against"`
	Path    string `json:"path,omitempty" jsonschema:"The directory to search in. If not specified, the current working directory will be used. IMPORTANT: Omit this field to use the default directory. DO NOT enter \"undefined\" or \"null\" - simply omit it for the default behavior. Must be a valid directory path if provided."`
}

const globDesc = `- Fast file pattern matching tool that works with any codebase size
- Supports glob patterns like "**/*.js" or "src/**/*.ts" (** crosses directories; {a,b} alternatives; [abc] classes)
- Returns matching file paths sorted by modification time, newest first (at most 100; narrow the pattern if truncated)
- Skips .git and node_modules directories unless the pattern names them
- Use this tool when you need to find files by name patterns
- When you are doing an open ended search that may require multiple rounds of globbing and grepping, use the Task tool instead
- You can call multiple tools in a single response. It is always better to speculatively perform multiple searches in parallel if they are potentially useful.`

func (*Glob) ConcurrencySafe(json.RawMessage) bool { return true }
func (*Glob) ReadOnly(json.RawMessage) bool        { return true }

// Subject is the directory searched: path, or an absolute pattern's base.
func (*Glob) Subject(in json.RawMessage) string {
	if p := field(in, "path"); p != "" {
		return p
	}
	if pat := field(in, "pattern"); filepath.IsAbs(pat) {
		base, _ := doublestar.SplitPattern(filepath.ToSlash(pat))
		return base
	}
	return ""
}

func (g *Glob) Run(ctx context.Context, env *tool.Env, input json.RawMessage) (tool.Result, error) {
	in, bad, ok := g.parse(input)
	if !ok {
		return bad, nil
	}
	if in.Pattern == "" {
		return tool.Errorf("pattern is empty"), nil
	}
	start := time.Now()
	dir, pattern := in.Path, in.Pattern
	if filepath.IsAbs(pattern) {
		// An absolute pattern carries its own base directory.
		dir, pattern = doublestar.SplitPattern(filepath.ToSlash(pattern))
	}
	if dir == "" {
		dir = env.Cwd
	}
	abs, err := env.Resolve(dir)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return tool.Errorf("%s is not a directory", abs), nil
	}
	if !doublestar.ValidatePattern(pattern) {
		return tool.Errorf("invalid glob pattern %q", in.Pattern), nil
	}
	type hit struct {
		path string
		mod  time.Time
	}
	var hits []hit
	var fsys fs.FS = os.DirFS(abs)
	if !strings.Contains(pattern, ".git") && !strings.Contains(pattern, "node_modules") {
		fsys = skipFS{fsys}
	}
	err = doublestar.GlobWalk(fsys, pattern, func(p string, d fs.DirEntry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		hits = append(hits, hit{filepath.Join(abs, filepath.FromSlash(p)), info.ModTime()})
		return nil
	}, doublestar.WithFilesOnly(), doublestar.WithNoFollow())
	if err != nil {
		if ctx.Err() != nil {
			return tool.Errorf("interrupted"), nil
		}
		return tool.Errorf("glob %q in %s: %v", in.Pattern, abs, err), nil
	}
	resp := globResponse{Filenames: []string{}, TotalMatches: len(hits), CountIsComplete: true}
	if len(hits) == 0 {
		resp.DurationMs = time.Since(start).Milliseconds()
		return tool.Result{Output: "No files found", Response: resp}, nil
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if !hits[i].mod.Equal(hits[j].mod) {
			return hits[i].mod.After(hits[j].mod)
		}
		return hits[i].path < hits[j].path
	})
	var b strings.Builder
	for i, h := range hits {
		if i == globMax {
			b.WriteString("(Results are truncated: " + plural(len(hits)-globMax, "more file") + ". Consider using a more specific path or pattern.)\n")
			break
		}
		b.WriteString(h.path + "\n")
		resp.Filenames = append(resp.Filenames, relToCwd(env.Cwd, h.path))
	}
	resp.NumFiles, resp.Truncated = len(resp.Filenames), len(hits) > globMax
	resp.DurationMs = time.Since(start).Milliseconds()
	return tool.Result{Output: b.String(), Response: resp}, nil
}

// skipDirs are never searched: version control and dependency trees.
var skipDirs = map[string]bool{".git": true, "node_modules": true, ".hg": true, ".svn": true}

// skipFS hides the skipped directories from the walk, so it never
// descends into them (a node_modules tree can be huge).
type skipFS struct{ fs.FS }

func (s skipFS) ReadDir(name string) ([]fs.DirEntry, error) {
	ents, err := fs.ReadDir(s.FS, name)
	out := ents[:0]
	for _, e := range ents {
		if !(e.IsDir() && skipDirs[e.Name()]) {
			out = append(out, e)
		}
	}
	return out, err
}

func (s skipFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(s.FS, name) }
