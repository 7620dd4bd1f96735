// Package tmpfstest mounts a small tmpfs for a test: a real file system
// that fills up (or a ramfs: one that cannot set space aside). Mounting needs root: a test without it is skipped, except
// under CI (CI set), which runs as root and where it fails.
package tmpfstest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size bytes on a new directory, unmounted when
// the test ends, and returns the directory.
func Mount(t testing.TB, size int64) string {
	t.Helper()
	return mount(t, "tmpfs", fmt.Sprintf("size=%d,mode=0700", size))
}

// MountNoPrealloc mounts a file system that cannot preallocate (ramfs: no
// fallocate, no size limit), unmounted when the test ends.
func MountNoPrealloc(t testing.TB) string {
	t.Helper()
	return mount(t, "ramfs", "mode=0700")
}

func mount(t testing.TB, fstype, opts string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount(fstype, dir, fstype, 0, opts); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI runs as root: mount a %s on %s: %v", fstype, dir, err)
		}
		t.Skipf("cannot mount a %s (root only): %v", fstype, err)
	}
	// Lazily: a process the test left behind must not keep it mounted.
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// Fill writes a file in dir until its file system is full and returns the
// file's path: removing it gives the space back.
func Fill(t testing.TB, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill %s: %v", dir, err)
			}
			break
		}
	}
	// A write smaller than a page may still find room in the last one.
	for _, err := f.Write(buf[:1]); err == nil; _, err = f.Write(buf[:1]) {
	}
	return path
}

// Free is how many bytes the file system holding dir has left.
func Free(t testing.TB, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * st.Bsize
}
