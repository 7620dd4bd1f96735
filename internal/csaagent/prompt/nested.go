package prompt

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	ignore "github.com/sabhiram/go-gitignore"
)

// NestedMemory gives the model, when it reads a file, the memory Claude
// Code attaches then ("nested memory"): the rules limited to paths (front
// matter paths:) that cover the file, and the memory files of the folders
// between the working directory and the file's, each file once a
// session.
type NestedMemory struct {
	home, cwd string
	external  bool
	mu        sync.Mutex
	given     map[string]bool
}

// NewNestedMemory is the nested memory of a session in cwd; home "" leaves
// the user's rules out. external is Env.ExternalImports.
func NewNestedMemory(home, cwd string, external bool) *NestedMemory {
	return &NestedMemory{home: home, cwd: filepath.Clean(cwd), external: external, given: map[string]bool{}}
}

// For returns, as the reminder the model gets beside the Read's result,
// the files not given yet that apply to path (absolute), in Claude Code's
// order: the user's scoped rules (~/.claude/rules, patterns relative to
// cwd); for each folder below cwd down to path's, its CLAUDE.md,
// .claude/CLAUDE.md, CLAUDE.local.md (each with its imports), its rules
// for every path and its scoped rules; then the scoped rules of cwd and
// of each folder above it, the top one first (patterns relative to the
// folder holding .claude). "" when none applies.
func (r *NestedMemory) For(path string) string {
	path = filepath.Clean(path)
	r.mu.Lock()
	defer r.mu.Unlock()
	m := &memory{home: r.home, cwd: r.cwd, external: r.external, seen: map[string]bool{}}
	// scoped are the rules of dir whose patterns match path relative to
	// base, read apart from m (which has seen the same files as rules for
	// every path). A scoped rule's imports are not given, so who wrote it
	// does not matter here.
	scoped := func(dir, base string) []file {
		var out []file
		sm := &memory{home: r.home, cwd: r.cwd, seen: map[string]bool{}}
		for _, f := range sm.rules(dir, fromProject, map[string]bool{}, true) {
			if matches(f.globs, base, path) {
				out = append(out, f)
			}
		}
		return out
	}
	var files []file
	if r.home != "" {
		files = append(files, scoped(filepath.Join(r.home, ".claude", "rules"), r.cwd)...)
	}
	for _, d := range below(r.cwd, filepath.Dir(path)) {
		files = append(files, m.load(filepath.Join(d, "CLAUDE.md"), fromProject, 0)...)
		files = append(files, m.load(filepath.Join(d, ".claude", "CLAUDE.md"), fromProject, 0)...)
		files = append(files, m.load(filepath.Join(d, "CLAUDE.local.md"), fromProject, 0)...)
		files = append(files, m.rules(filepath.Join(d, ".claude", "rules"), fromProject, map[string]bool{}, false)...)
		files = append(files, scoped(filepath.Join(d, ".claude", "rules"), d)...)
	}
	for _, d := range ancestors(r.cwd) {
		files = append(files, scoped(filepath.Join(d, ".claude", "rules"), d)...)
	}
	var parts []string
	for _, f := range files {
		if r.given[f.path] {
			continue
		}
		r.given[f.path] = true
		parts = append(parts, fmt.Sprintf("Contents of %s:\n\n%s", f.path, f.text))
	}
	if len(parts) == 0 {
		return ""
	}
	// Claude Code's text, which it sends as a system message of its own;
	// not every provider takes one mid-conversation, so csa-agent marks
	// it as the harness's beside the result.
	return "<system-reminder>\n" + strings.Join(parts, "\n\n") + "\n</system-reminder>"
}

// matches reports whether path, relative to base, matches the gitignore
// patterns (Claude Code matches with the ignore package); a path outside
// base matches none.
func matches(globs []string, base, path string) bool {
	rel, err := filepath.Rel(base, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	return ignore.CompileIgnoreLines(globs...).MatchesPath(filepath.ToSlash(rel))
}

// below lists the folders under top down to dir, top itself left out;
// none when dir is not below top.
func below(top, dir string) []string {
	var out []string
	for d := filepath.Clean(dir); d != top && within(d, top); d = filepath.Dir(d) {
		out = append(out, d)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
