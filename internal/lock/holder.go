package lock

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// Holder is an exclusive lock whose open file can be handed to a child
// process: flock belongs to the open file description, so a child that
// inherits the descriptor holds the same lock after its parent exits. That
// is how a detached supervisor takes over liveness without a gap.
type Holder struct{ File *os.File }

// Acquire takes an exclusive lock on path without blocking; it fails if
// someone else holds it.
func Acquire(path string) (*Holder, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: already held: %w", path, err)
	}
	return &Holder{File: f}, nil
}

// Adopt wraps an inherited descriptor that already holds the lock.
func Adopt(fd uintptr, name string) (*Holder, error) {
	f := os.NewFile(fd, name)
	if f == nil {
		return nil, fmt.Errorf("lock: no inherited descriptor %d", fd)
	}
	// Re-asserting is a no-op on the same open file description, and fails
	// if the descriptor is not the lock we were promised.
	if err := syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock: inherited descriptor %d: %w", fd, err)
	}
	// An inherited descriptor is open across exec: every program started
	// from here (the agent, its MCP servers, a daemon) would hold the lock
	// for as long as it lives.
	syscall.CloseOnExec(int(fd))
	return &Holder{File: f}, nil
}

// Release drops the lock.
func (h *Holder) Release() error { return h.File.Close() }

// AcquireWait is Acquire that waits up to timeout for a holder to let go
// (a process handing a lock over to one it started).
func AcquireWait(path string, timeout time.Duration) (*Holder, error) {
	deadline := time.Now().Add(timeout)
	for {
		h, err := Acquire(path)
		if err == nil || time.Now().After(deadline) {
			return h, err
		}
		time.Sleep(2 * time.Millisecond)
	}
}
