// Package lock wraps flock(2) for the two uses csa has: exclusive locks held
// for the life of a process (so liveness survives PID reuse) and short
// read-modify-write sections. It imports nothing else from csa.
package lock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// ErrTimeout is returned when a lock could not be taken in time.
var ErrTimeout = errors.New("lock: timed out")

// Lock is an exclusive flock on a file. The kernel releases it when the
// holder dies, which is what makes it a reliable liveness signal.
type Lock struct{ f *flock.Flock }

// New returns an unlocked lock on path; the file is created on first use.
func New(path string) *Lock {
	return &Lock{f: flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o600))}
}

// NewDir returns an unlocked lock on an existing directory (flock works on
// directories too).
func NewDir(dir string) *Lock { return &Lock{f: flock.New(dir, flock.SetFlag(os.O_RDONLY))} }

// TryLock takes the lock if it is free and reports whether it did.
func (l *Lock) TryLock() (bool, error) {
	ok, err := l.f.TryLock()
	if err != nil {
		return false, fmt.Errorf("lock %s: %w", l.f.Path(), err)
	}
	return ok, nil
}

// LockTimeout blocks until the lock is taken, ctx ends or timeout passes.
func (l *Lock) LockTimeout(ctx context.Context, timeout time.Duration) error {
	return l.wait(ctx, timeout, l.f.TryLockContext)
}

// LockSharedTimeout takes the lock shared with other shared holders (but
// not with an exclusive one), waiting at most timeout.
func (l *Lock) LockSharedTimeout(ctx context.Context, timeout time.Duration) error {
	return l.wait(ctx, timeout, l.f.TryRLockContext)
}

func (l *Lock) wait(ctx context.Context, timeout time.Duration, try func(context.Context, time.Duration) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ok, err := try(ctx, 5*time.Millisecond)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("lock %s: %w", l.f.Path(), err)
	}
	if !ok {
		return fmt.Errorf("lock %s: %w", filepath.Base(l.f.Path()), ErrTimeout)
	}
	return nil
}

// Unlock releases the lock and closes its file.
func (l *Lock) Unlock() error { return l.f.Close() }

// Held reports whether another process currently holds an exclusive lock on
// path. A missing file means nobody holds it.
func Held(path string) (bool, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	l := New(path)
	ok, err := l.TryLock()
	if err != nil {
		return false, err
	}
	if ok {
		l.Unlock()
		return false, nil
	}
	return true, nil
}
