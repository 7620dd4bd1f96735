package tool

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Resolve turns a path the model gave into the absolute, symlink-free path
// a file tool may use: relative paths are joined to Cwd, "~/" is the home
// directory, symlinks are followed as far as the path exists (a dangling
// link included, so a new file cannot be created through a link that
// points out), and the result must lie within one of Roots (Cwd when Roots
// is empty). Bash is not confined: it runs commands, which no path check
// could contain.
func (e *Env) Resolve(path string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", errors.New("path is empty")
	}
	if path == "~" || strings.HasPrefix(path, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot expand ~: %v", err)
		}
		path = filepath.Join(home, path[1:])
	}
	if !filepath.IsAbs(path) {
		if e.Cwd == "" {
			return "", fmt.Errorf("%s is relative and there is no working directory", path)
		}
		path = filepath.Join(e.Cwd, path)
	}
	real, err := realPath(filepath.Clean(path))
	if err != nil {
		return "", err
	}
	roots := e.roots()
	for _, r := range roots {
		rr, err := realPath(filepath.Clean(r))
		if err != nil {
			continue
		}
		if Within(rr, real) {
			return real, nil
		}
	}
	if real != path {
		return "", fmt.Errorf("%s (really %s) is outside the allowed directories: %s", path, real, strings.Join(roots, ", "))
	}
	return "", fmt.Errorf("%s is outside the allowed directories: %s", path, strings.Join(roots, ", "))
}

func (e *Env) roots() []string {
	if len(e.Roots) > 0 {
		return e.Roots
	}
	if e.Cwd != "" {
		return []string{e.Cwd}
	}
	return nil
}

// Within reports whether path is root or below it (both clean and absolute).
func Within(root, path string) bool {
	if root == path || root == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(path, root+string(filepath.Separator))
}

// realPath resolves the symlinks of the part of p that exists and keeps the
// rest as written. A missing component that is a dangling symlink is
// followed: writing through it would land at its target.
func realPath(p string) (string, error) {
	for hops := 0; hops < 40; hops++ {
		dir, rest := p, ""
		for {
			r, err := filepath.EvalSymlinks(dir)
			if err == nil {
				if rest == "" {
					return r, nil
				}
				first, tail, _ := strings.Cut(rest, string(filepath.Separator))
				link := filepath.Join(r, first)
				if fi, lerr := os.Lstat(link); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
					target, err := os.Readlink(link)
					if err != nil {
						return "", err
					}
					if !filepath.IsAbs(target) {
						target = filepath.Join(r, target)
					}
					p = filepath.Join(target, tail)
					break
				}
				return filepath.Join(r, rest), nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return p, nil
			}
			rest = filepath.Join(filepath.Base(dir), rest)
			dir = parent
		}
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", p)
}

// RealPath is p (absolute and clean) with the symlinks of its existing part
// resolved, as Resolve sees it, without the roots check.
func RealPath(p string) (string, error) { return realPath(filepath.Clean(p)) }
