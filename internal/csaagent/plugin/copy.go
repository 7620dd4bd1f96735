package plugin

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// copier copies a plugin's folder into the cache as Claude Code does:
// a symbolic link to a file of the plugin stays a (relative) link, one to
// elsewhere in the marketplace is replaced by a copy of what it points
// at, one leaving the marketplace (or broken) is left out.
type copier struct {
	root, destRoot string // the tree being copied and its copy
	contain        string // the marketplace's folder
	seen           map[string]bool
}

func copyPlugin(src, dest, marketplace string) error {
	c := copier{root: src, destRoot: dest, contain: marketplace, seen: map[string]bool{}}
	if err := c.copyDir(src, dest); err != nil {
		return err
	}
	return os.RemoveAll(filepath.Join(dest, ".git"))
}

func (c copier) copyDir(src, dest string) error {
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		from, to := filepath.Join(src, e.Name()), filepath.Join(dest, e.Name())
		switch {
		case e.IsDir():
			err = c.copyDir(from, to)
		case e.Type().IsRegular():
			err = copyFile(from, to)
		case e.Type()&os.ModeSymlink != 0:
			err = c.copyLink(from, to)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (c copier) copyLink(from, to string) error {
	target, err := os.Readlink(from)
	if err != nil {
		return err
	}
	root, contain := realPath(c.root), realPath(c.contain)
	real, err := filepath.EvalSymlinks(from)
	if err != nil { // broken: kept only if it points inside the plugin
		if !filepath.IsAbs(target) && within(filepath.Join(filepath.Dir(from), target), c.root) {
			return os.Symlink(target, to)
		}
		return nil
	}
	if within(real, root) {
		rel, err := filepath.Rel(filepath.Dir(to), filepath.Join(c.destRoot, strings.TrimPrefix(real, root)))
		if err != nil {
			return err
		}
		return os.Symlink(rel, to)
	}
	if !within(real, contain) || within(root, real) || c.seen[real] {
		return nil
	}
	fi, err := os.Stat(real)
	if err != nil {
		return err
	}
	if fi.Mode().IsRegular() {
		return copyFile(real, to)
	}
	if !fi.IsDir() {
		return nil
	}
	c.seen[real] = true
	defer delete(c.seen, real)
	return copier{root: real, destRoot: to, contain: c.contain, seen: c.seen}.copyDir(real, to)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// within says whether path is dir or inside it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}
