package fsutil

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// Room is disk space set aside while there is some, so that a record can
// still be written once the file system is full: writing into blocks a
// file already has takes none.

// NoSpace reports whether err means the file system (or the user's quota
// on it) has no room left.
func NoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// ErrNoPrealloc is KeepRoom's answer on a file system that cannot set
// space aside (no fallocate).
var ErrNoPrealloc = errors.New("the file system cannot preallocate")

// KeepRoom allocates the n bytes of f from off without changing its size:
// later writes there need no free space. Beyond the end of the file the
// room stays invisible to readers.
func KeepRoom(f *os.File, off, n int64) error {
	return fallocate(f, unix.FALLOC_FL_KEEP_SIZE, off, n)
}

// FreeRoom gives back what KeepRoom allocated of the n bytes from off on,
// past the end of f.
func FreeRoom(f *os.File, off, n int64) error {
	// Only whole pages are given back: the range ends on one.
	page := int64(os.Getpagesize())
	end := (off + n + page - 1) / page * page
	return fallocate(f, unix.FALLOC_FL_KEEP_SIZE|unix.FALLOC_FL_PUNCH_HOLE, off, end-off)
}

func fallocate(f *os.File, mode uint32, off, n int64) error {
	if n <= 0 {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			ferr = unix.Fallocate(int(fd), mode, off, n)
			if ferr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	switch {
	case ferr == nil:
		return nil
	case errors.Is(ferr, unix.EOPNOTSUPP) || errors.Is(ferr, unix.ENOSYS):
		return ErrNoPrealloc
	}
	return &os.PathError{Op: "fallocate", Path: f.Name(), Err: ferr}
}

// Reserve makes path a file holding size bytes of allocated space, for
// WriteFileFromRoom; it replaces path at once, so a reader never finds a
// smaller one. Where the space cannot be had (a full disk, a file system
// without fallocate) it leaves nothing and says why.
func Reserve(path string, size int64) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("reserve %s: %w", path, err)
	}
	err = fallocate(f, 0, 0, size)
	if err == nil {
		err = f.Chmod(FileMode)
	}
	f.Close()
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("reserve %s: %w", path, err)
	}
	return nil
}

// WriteFileFromRoom is WriteFileAtomic for a full disk: data is written
// into the space Reserve set aside at room, which is fsynced and renamed
// over path. It takes no new space as long as data fits in the room; room
// is used up.
func WriteFileFromRoom(room, path string, data []byte) error {
	f, err := os.OpenFile(room, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	fail := func(err error) error {
		f.Close()
		return fmt.Errorf("write %s from %s: %w", path, room, err)
	}
	fi, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	if int64(len(data)) > fi.Size() {
		return fail(fmt.Errorf("%d bytes do not fit in the %d set aside", len(data), fi.Size()))
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		return fail(err)
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s from %s: %w", path, room, err)
	}
	if err := os.Rename(room, path); err != nil {
		return fmt.Errorf("write %s from %s: %w", path, room, err)
	}
	return nil
}
