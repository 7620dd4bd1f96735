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
type confinement struct{ roots []string }

func newConfinement(dirs []string) *confinement {
	c := &confinement{}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		c.roots = append(c.roots, resolve(filepath.Clean(d)))
	}
	return c
}

// check returns the resolved path if it lies inside a root.
func (c *confinement) check(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%q is not an absolute path", path)
	}
	real := resolve(filepath.Clean(path))
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
