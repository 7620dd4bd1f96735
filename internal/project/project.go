// Package project locates the root of the project csa works in and names the
// directory that holds the project's state.
package project

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxReadable caps the readable part of a slug, so that a slug stays well
// under the file-name limit of common file systems.
const maxReadable = 64

// FindRoot returns the project root for dir: the nearest directory, from dir
// upward, that holds a .csa directory or a .git entry (directory or file, as
// in worktrees and submodules). If there is none, it returns dir itself.
// The result is always absolute, cleaned and free of symbolic links; an
// empty dir means the current directory.
func FindRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("find project root: %w", err)
	}
	start, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("find project root: %w", err)
	}
	for d := start; ; {
		ok, err := isRoot(d)
		if err != nil {
			return "", fmt.Errorf("find project root: %w", err)
		}
		if ok {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return start, nil
		}
		d = parent
	}
}

// isRoot reports whether d holds a .csa directory or a .git entry.
func isRoot(d string) (bool, error) {
	fi, err := os.Stat(filepath.Join(d, ".csa"))
	switch {
	case err == nil && fi.IsDir():
		return true, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission):
		return false, err
	}
	_, err = os.Lstat(filepath.Join(d, ".git"))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission):
		return false, nil
	default:
		return false, err
	}
}

// Slug returns a directory name for the state of the project at root. It is
// readable (the last two path components, restricted to [A-Za-z0-9._-] and
// joined with '-') and unique (followed by '-' and the first 12 hex digits of
// the SHA-256 of the cleaned root), and the same on every run.
// For example "/home/ann/src/csa" gives "src-csa-" plus 12 hex digits.
func Slug(root string) string {
	root = filepath.Clean(root)
	sum := sha256.Sum256([]byte(root))

	var parts []string
	for _, p := range strings.Split(filepath.ToSlash(root), "/") {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	for i, p := range parts {
		parts[i] = sanitize(p)
	}
	name := strings.Join(parts, "-")
	if len(name) > maxReadable {
		name = name[len(name)-maxReadable:]
	}
	name = strings.TrimLeft(name, ".-") // no hidden or option-like names
	if name == "" {
		name = "root"
	}
	return name + "-" + hex.EncodeToString(sum[:])[:12]
}

// sanitize replaces every rune outside [A-Za-z0-9._-] with '_'.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		default:
			return '_'
		}
	}, s)
}
