// Package fsutil holds the file-system primitives every record relies on:
// atomic replacement and private permissions.
package fsutil

import (
	"fmt"
	"os"
	"path/filepath"
)

// DirMode and FileMode are used for everything csa stores: sessions hold
// prompts and agent output, which are nobody else's business.
const (
	DirMode  os.FileMode = 0o700
	FileMode os.FileMode = 0o600
)

// WriteFileAtomic writes data to a temporary file in the same directory,
// fsyncs it and renames it over path, so readers see the old or the new
// content, never a torn one, even across a crash.
func WriteFileAtomic(path string, data []byte) error { return writeReplace(path, data, true) }

// WriteFileReplace is WriteFileAtomic without the fsync: readers still
// never see a torn file, but a crash of the machine may lose the write.
// For files that are only useful while the machine runs anyway.
func WriteFileReplace(path string, data []byte) error { return writeReplace(path, data, false) }

func writeReplace(path string, data []byte, sync bool) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(FileMode); err != nil {
		return fail(err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// MkdirPrivate creates dir and its parents with DirMode.
func MkdirPrivate(dir string) error {
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return nil
}
