package prompt

import (
	"os"
	"path/filepath"
	"strings"
)

// Memory files are read as Claude Code reads them, so that a Claude Code
// set-up reaches the model unchanged.
const (
	// maxImportDepth: a file's imports are read to this many hops less
	// one (Claude Code stops at depth 5 with the top file at depth 0).
	maxImportDepth = 5
	// maxMemoryBytes: a larger file is skipped whole, as Claude Code does.
	maxMemoryBytes = 4 << 20
)

// origin is who wrote a memory file: it decides whether its imports may
// reach outside the working directory.
type origin int

const (
	fromUser    origin = iota // ~/.claude: may import anything
	fromProject               // in the project: imports outside cwd need approval
)

// memory collects the memory files in order, each once.
type memory struct {
	home, cwd string
	// external lets project files import files outside cwd (Claude Code
	// asks once per project; see ExternalImportsApproved).
	external bool
	seen     map[string]bool
}

// memoryFiles lists the memory files in the order Claude Code reads them:
// the user's (~/.claude/CLAUDE.md, ~/.claude/rules), csa-agent's own
// ~/.config/csa-agent/AGENTS.md, then each directory from the top of the
// file system down to cwd: AGENTS.md, CLAUDE.md, .claude/CLAUDE.md,
// .claude/rules/**/*.md, CLAUDE.local.md. Each file is followed by the
// files it imports.
func memoryFiles(home, cwd string, external bool) []file {
	m := &memory{home: home, cwd: cwd, external: external, seen: map[string]bool{}}
	var out []file
	if home != "" {
		out = append(out, m.load(filepath.Join(home, ".claude", "CLAUDE.md"), fromUser, 0)...)
		out = append(out, m.rules(filepath.Join(home, ".claude", "rules"), fromUser, map[string]bool{}, false)...)
		out = append(out, m.load(filepath.Join(home, ".config", "csa-agent", "AGENTS.md"), fromUser, 0)...)
	}
	for _, dir := range ancestors(cwd) {
		out = append(out, m.load(filepath.Join(dir, "AGENTS.md"), fromProject, 0)...)
		out = append(out, m.load(filepath.Join(dir, "CLAUDE.md"), fromProject, 0)...)
		out = append(out, m.load(filepath.Join(dir, ".claude", "CLAUDE.md"), fromProject, 0)...)
		out = append(out, m.rules(filepath.Join(dir, ".claude", "rules"), fromProject, map[string]bool{}, false)...)
		out = append(out, m.load(filepath.Join(dir, "CLAUDE.local.md"), fromProject, 0)...)
	}
	return out
}

// ancestors lists the directories from the top of the file system (the
// root itself left out, as Claude Code does) down to dir.
func ancestors(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); d != filepath.Dir(d); d = filepath.Dir(d) {
		out = append(out, d)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// load reads one file and, after it, what it imports. A file already read
// (a cycle, or a second import of it) is not read again; a missing,
// unreadable, over-large or non-text file is left out silently.
func (m *memory) load(path string, o origin, depth int) []file {
	path = filepath.Clean(path)
	if m.seen[path] || depth >= maxImportDepth {
		return nil
	}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		if m.seen[real] {
			return nil
		}
		m.seen[real] = true
	}
	m.seen[path] = true
	data, ok := readMemory(path)
	if !ok {
		return nil
	}
	body, globs := splitFrontMatter(data)
	content, imports := parseMemory(body, filepath.Dir(path), m.home)
	if strings.TrimSpace(content) == "" {
		return nil
	}
	out := []file{{path: path, text: strings.TrimSpace(content), globs: globs}}
	for _, imp := range imports {
		if o == fromProject && !m.external && !within(imp, m.cwd) {
			continue
		}
		out = append(out, m.load(imp, o, depth+1)...)
	}
	return out
}

// rules reads a rules directory's *.md files, sub-directories included,
// in the directory's own order, as Claude Code does. A rule whose front
// matter names paths: applies only to those files: Claude Code gives it
// when such a file is read (ScopedRules), so only scoped ones read them
// and the others leave them out; the files a rule imports come only with
// an unscoped one, as in Claude Code.
func (m *memory) rules(dir string, o origin, visited map[string]bool, scoped bool) []file {
	if visited[dir] {
		return nil
	}
	visited[dir] = true
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil
	}
	visited[real] = true
	entries, err := readDirUnsorted(real)
	if err != nil {
		return nil
	}
	var out []file
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			out = append(out, m.rules(p, o, visited, scoped)...)
			continue
		}
		if !fi.Mode().IsRegular() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r // Claude Code names a linked rule by its target
		}
		for _, f := range m.load(p, o, 0) {
			if (len(f.globs) > 0) == scoped {
				out = append(out, f)
			}
		}
	}
	return out
}

// readDirUnsorted lists a directory in the order the file system keeps
// it (os.ReadDir would sort by name; Claude Code does not).
func readDirUnsorted(dir string) ([]os.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// readMemory reads a regular text file of at most maxMemoryBytes. Its
// bytes are kept as they are, UTF-8 or not.
func readMemory(path string) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxMemoryBytes || !textExtension(path) {
		return "", false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	return string(data), true
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// textExtension reports whether a file may be read as memory: one without
// an extension, or with one of Claude Code's text extensions (an import of
// an image or a binary is skipped).
func textExtension(path string) bool {
	base := filepath.Base(path)
	i := strings.LastIndexByte(base, '.')
	if i <= 0 {
		return true
	}
	return textExtensions[strings.ToLower(base[i:])]
}

var textExtensions = func() map[string]bool {
	m := map[string]bool{}
	for _, e := range strings.Fields(`.md .txt .text .json .yaml .yml .toml .xml .csv .html .htm .css .scss .sass
		.less .js .ts .tsx .jsx .mjs .cjs .mts .cts .py .pyi .pyw .rb .erb .rake .go .rs .java .kt .kts .scala .c
		.cpp .cc .cxx .h .hpp .hxx .cs .swift .sh .bash .zsh .fish .ps1 .bat .cmd .env .ini .cfg .conf .config
		.properties .sql .graphql .gql .proto .vue .svelte .astro .ejs .hbs .pug .jade .php .pl .pm .lua .r
		.dart .ex .exs .erl .hrl .clj .cljs .cljc .edn .hs .lhs .elm .ml .mli .f .f90 .f95 .for .cmake .make
		.makefile .gradle .sbt .rst .adoc .asciidoc .org .tex .latex .lock .log .diff .patch`) {
		m[e] = true
	}
	return m
}()
