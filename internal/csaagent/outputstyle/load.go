package outputstyle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/frontmatter"
	"github.com/csa-dev/csa/internal/csaagent/plugin"
)

// ManagedDir is the organisation's folder of styles on Linux.
const ManagedDir = "/etc/claude-code/.claude/output-styles"

// maxFileBytes: a larger style file is skipped, as Claude Code skips it.
const maxFileBytes = 1 << 20

// Sources are where Load looks. Any may be "".
type Sources struct {
	// Managed is the organisation's folder (ManagedDir; a test's own).
	Managed string
	// Home is the user's home (~/.claude/output-styles).
	Home string
	// Cwd and ProjectRoot: the .claude/output-styles of each folder from
	// Cwd up to ProjectRoot (the git root; the top of the file system
	// without one), never at or above Home, as Claude Code looks.
	Cwd, ProjectRoot string
	// Plugins are the enabled plugins (their output-styles folder, or the
	// folders and files their manifest names instead).
	Plugins []plugin.Plugin
}

// Load lists the styles in Claude Code's order of precedence, lowest
// first: the built-in ones, the plugins' (named "plugin:name"), the
// user's, the project's (the folder nearest the working directory last),
// the organisation's. A later style replaces an earlier one of the same
// name in its place. A file that cannot be read or parsed is named in the
// error and left out; the others are returned.
func Load(src Sources) ([]Style, error) {
	var errs []error
	var all []Style
	all = append(all, builtIns...)
	for _, p := range src.Plugins {
		paths, err := p.OutputStyles()
		errs = appendErr(errs, err)
		for _, path := range paths {
			list, err := loadPath(path, Plugin, p.Name+":")
			all, errs = append(all, list...), appendErr(errs, err)
		}
	}
	if src.Home != "" {
		list, err := loadDir(filepath.Join(src.Home, ".claude", "output-styles"), User, "")
		all, errs = append(all, list...), appendErr(errs, err)
	}
	for _, dir := range projectDirs(src.Cwd, src.ProjectRoot, src.Home) {
		list, err := loadDir(dir, Project, "")
		all, errs = append(all, list...), appendErr(errs, err)
	}
	if src.Managed != "" {
		list, err := loadDir(src.Managed, Policy, "")
		all, errs = append(all, list...), appendErr(errs, err)
	}
	return dedupe(all), errors.Join(errs...)
}

func appendErr(errs []error, err error) []error {
	if err != nil {
		return append(errs, err)
	}
	return errs
}

// dedupe keeps one style a name: the last one, in the first one's place.
func dedupe(all []Style) []Style {
	var out []Style
	at := map[string]int{}
	for _, s := range all {
		if i, ok := at[s.Name]; ok {
			out[i] = s
			continue
		}
		at[s.Name] = len(out)
		out = append(out, s)
	}
	return out
}

// projectDirs lists the existing .claude/output-styles folders from the
// top one down to cwd's: Claude Code walks up from cwd and stops at the
// project root or before home, then reads the shallowest first.
func projectDirs(cwd, root, home string) []string {
	if cwd == "" {
		return nil
	}
	var out []string
	for d := filepath.Clean(cwd); ; {
		if home != "" && d == filepath.Clean(home) {
			break
		}
		if dir := filepath.Join(d, ".claude", "output-styles"); isDir(dir) {
			out = append(out, dir)
		}
		if root != "" && d == filepath.Clean(root) {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// loadPath reads a folder of styles, or one style's .md file.
func loadPath(path, source, prefix string) ([]Style, error) {
	if isDir(path) {
		return loadDir(path, source, prefix)
	}
	s, ok, err := loadFile(path, source, prefix)
	if !ok {
		return nil, err
	}
	return []Style{s}, err
}

// loadDir reads every *.md file under dir, in subfolders too; a missing
// dir has none. prefix namespaces a plugin's styles.
func loadDir(dir, source, prefix string) ([]Style, error) {
	if !isDir(dir) {
		return nil, nil
	}
	var paths []string
	var errs []error
	// WalkDir does not follow links to folders; Claude Code's walk does,
	// but a style folder of links is rare and a cycle costs nothing here.
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, fmt.Errorf("output styles %s: %w", path, err))
			return nil
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}
	sort.Strings(paths)
	var out []Style
	for _, path := range paths {
		s, ok, err := loadFile(path, source, prefix)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			out = append(out, s)
		}
	}
	return out, errors.Join(errs...)
}

// loadFile reads one style: its name is the front matter's name, else the
// file's without .md; its description the front matter's, else the body's
// first line. A file too large or not regular is skipped silently; one
// whose front matter is not YAML is kept without it, as Claude Code keeps
// it, and named in the error.
func loadFile(path, source, prefix string) (Style, bool, error) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxFileBytes {
		return Style{}, false, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Style{}, false, fmt.Errorf("output style %s: %w", path, err)
	}
	fm, body, err := frontmatter.Split(data)
	if err != nil && !errors.Is(err, frontmatter.ErrNone) {
		return Style{}, false, fmt.Errorf("output style %s: %w", path, err)
	}
	keys, fmErr := frontmatter.Parse(fm)
	if fmErr != nil {
		keys, fmErr = nil, fmt.Errorf("output style %s: front matter ignored: %w", path, fmErr)
	}
	scalar := func(k string) string {
		s, _ := keys[k].Scalar(k)
		return s
	}
	base := strings.TrimSuffix(filepath.Base(path), ".md")
	name := scalar("name")
	if name == "" {
		name = base
	}
	s := Style{
		Name:                   prefix + name,
		Description:            scalar("description"),
		Prompt:                 strings.TrimSpace(body),
		Source:                 source,
		KeepCodingInstructions: scalar("keep-coding-instructions") == "true",
		ForceForPlugin:         source == Plugin && scalar("force-for-plugin") == "true",
	}
	if s.Description == "" {
		def := fmt.Sprintf("Custom %s output style", base)
		if source == Plugin {
			def = fmt.Sprintf("Output style from %s plugin", strings.TrimSuffix(prefix, ":"))
		}
		s.Description = firstLine(body, def)
	}
	return s, true, fmErr
}

// firstLine is the body's first non-empty line, a heading's text without
// its #s, cut to 100 characters; def when the body is empty.
func firstLine(body, def string) string {
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if h := strings.TrimLeft(line, "#"); h != line && strings.HasPrefix(h, " ") {
			line = strings.TrimSpace(h)
		}
		if r := []rune(line); len(r) > 100 {
			line = string(r[:97]) + "..."
		}
		return line
	}
	return def
}
