package plugin

import (
	"io/fs"
	"path"
)

// withoutGit is a file system that hides .git entries: a plugin's cached
// copy has no repository in it.
type withoutGit struct{ fs.FS }

func (w withoutGit) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(w.FS, name)
	out := entries[:0]
	for _, e := range entries {
		if e.Name() != ".git" {
			out = append(out, e)
		}
	}
	return out, err
}

func (w withoutGit) Open(name string) (fs.File, error) {
	if path.Base(name) == ".git" {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return w.FS.Open(name)
}
