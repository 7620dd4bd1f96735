package acp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// confinement is the set of directories the agent's file requests may
// reach. Symbolic links are resolved, so a link inside cannot lead out.
type confinement struct {
	cwd   string // relative paths are taken from here
	roots []string
}

func newConfinement(cwd string, roots []string) *confinement {
	c := &confinement{cwd: cwd}
	for _, d := range append([]string{cwd}, roots...) {
		if d == "" {
			continue
		}
		c.roots = append(c.roots, resolve(filepath.Clean(d)))
	}
	return c
}

// check returns the resolved path if it lies inside a root. ACP asks for
// absolute paths, but agents send relative ones too: those are taken from
// the working directory, then confined like any other.
func (c *confinement) check(path string) (string, error) {
	abs := path
	if !filepath.IsAbs(path) {
		if !filepath.IsAbs(c.cwd) {
			return "", fmt.Errorf("%q is a relative path and the session has no absolute working directory", path)
		}
		abs = filepath.Join(c.cwd, path)
	}
	real := resolve(filepath.Clean(abs))
	for _, r := range c.roots {
		if real == r || strings.HasPrefix(real, r+string(filepath.Separator)) {
			return real, nil
		}
	}
	return "", fmt.Errorf("%s is outside the working directory %s", path, strings.Join(c.roots, ", "))
}

// resolve follows symbolic links in the longest existing prefix of path
// and appends the rest as it is.
func resolve(path string) string {
	rest := ""
	for p := path; ; {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		} else if !errors.Is(err, os.ErrNotExist) {
			return path
		}
		parent := filepath.Dir(p)
		if parent == p {
			return path
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}
