package resource

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/lock"
)

// ErrNoSlots is returned (wrapped, with the tool and its limit) when every
// concurrency slot of a tool is held.
var ErrNoSlots = errors.New("no slots available")

// slotsPoll is how often a waiter looks at the queue and, at its head, at
// the slot files. flock has no "wake me when any of these frees", so
// waiting is polling.
const slotsPoll = 10 * time.Millisecond

// Slots limits how many runs of each tool exist at once on this machine,
// across processes. Slot i of a tool is an exclusive flock on
// <dir>/<tool>-<i>.lock, 0 <= i < max; the kernel drops the lock when the
// last descriptor of its open file closes, so a killed holder frees its
// slot.
//
// Waiters (Acquire) are served first come first served: plain flock
// wake-ups are unordered, so each waiter first takes a ticket, the file
// <dir>/queue/<tool>/<unix nanos, zero-padded>-<pid>-<random>, and keeps an
// flock on it while it waits. Tickets sort by arrival; the head of the
// queue is the oldest ticket whose lock is held, and only the head tries
// the slot files. A ticket whose lock is free belongs to a waiter that died
// and is removed by whoever finds it, so a killed waiter blocks nobody. A
// ticket is created under a dot-name, locked, then renamed into place, so
// it is never seen unlocked while its waiter lives.
//
// TryAcquire does not queue: it takes any slot that is free at that moment,
// and fails rather than wait. FCFS is the order among waiters.
type Slots struct {
	dir string
}

// NewSlots returns the slots kept in dir ($CSA_STATE_DIR/slots); dir is
// created (0700) on first use.
func NewSlots(dir string) *Slots { return &Slots{dir: dir} }

// Slot is a held concurrency slot. File holds the lock: pass it to a child
// through exec.Cmd.ExtraFiles and the child (AdoptSlot) holds the same
// lock, since flock belongs to the open file description; the slot stays
// taken until every process with the descriptor has closed it or died.
type Slot struct {
	Tool  string
	Index int
	File  *os.File
}

// Release closes this process's descriptor of the slot. The slot is free
// once no other process (a child that inherited the descriptor) holds it.
// Releasing twice is harmless.
func (sl *Slot) Release() error {
	if sl == nil || sl.File == nil {
		return nil
	}
	err := sl.File.Close()
	sl.File = nil
	if err != nil {
		return fmt.Errorf("release %s slot %d: %w", sl.Tool, sl.Index, err)
	}
	return nil
}

// AdoptSlot takes over a slot whose descriptor was inherited as fd (for
// ExtraFiles[0] that is 3). It re-asserts the lock, which is a no-op on the
// inherited open file and fails if the file is locked through another one,
// i.e. if fd is not the slot's lock.
func AdoptSlot(fd uintptr, tool string, index int) (*Slot, error) {
	if err := slotsCheckTool(tool); err != nil {
		return nil, err
	}
	h, err := lock.Adopt(fd, slotsFileName(tool, index))
	if err != nil {
		return nil, fmt.Errorf("adopt %s slot %d: %w", tool, index, err)
	}
	return &Slot{Tool: tool, Index: index, File: h.File}, nil
}

// TryAcquire takes a free slot of tool, of max, without waiting; it fails
// with an error wrapping ErrNoSlots when all are held.
func (s *Slots) TryAcquire(tool string, max int) (*Slot, error) {
	if err := slotsCheck(tool, max); err != nil {
		return nil, err
	}
	if err := fsutil.MkdirPrivate(s.dir); err != nil {
		return nil, fmt.Errorf("slots: %w", err)
	}
	for i := range max {
		h, err := lock.Acquire(s.slotPath(tool, i))
		if err == nil {
			return &Slot{Tool: tool, Index: i, File: h.File}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("slots: %w", err)
		}
	}
	return nil, fmt.Errorf("%w for %s (max_concurrent %d)", ErrNoSlots, tool, max)
}

// Acquire waits until a slot of tool is free and takes it, first come first
// served among all waiting processes, or returns ctx's error.
func (s *Slots) Acquire(ctx context.Context, tool string, max int) (*Slot, error) {
	if err := slotsCheck(tool, max); err != nil {
		return nil, err
	}
	qdir := s.queueDir(tool)
	if err := fsutil.MkdirPrivate(qdir); err != nil {
		return nil, fmt.Errorf("slots: %w", err)
	}
	ticket, name, err := slotsEnqueue(qdir)
	if err != nil {
		return nil, err
	}
	defer func() {
		// Unlink first, then unlock: the file is never seen unlocked.
		os.Remove(filepath.Join(qdir, name))
		ticket.Close()
	}()

	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for a %s slot: %w", tool, ctx.Err())
		case <-timer.C:
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("wait for a %s slot: %w", tool, err)
		}
		live, err := slotsScan(qdir, name, true)
		if err != nil {
			return nil, err
		}
		if live == 0 { // at the head
			sl, err := s.TryAcquire(tool, max)
			if err == nil {
				return sl, nil
			}
			if !errors.Is(err, ErrNoSlots) {
				return nil, err
			}
		}
		timer.Reset(slotsPoll)
	}
}

// Held is how many slots of tool, of max, are held now. It probes each slot
// by trying its lock, so for that instant a concurrent TryAcquire may find
// the probed slot taken.
func (s *Slots) Held(tool string, max int) (int, error) {
	if err := slotsCheck(tool, max); err != nil {
		return 0, err
	}
	n := 0
	for i := range max {
		held, err := lock.Held(s.slotPath(tool, i))
		if err != nil {
			return 0, fmt.Errorf("slots: %w", err)
		}
		if held {
			n++
		}
	}
	return n, nil
}

// Waiting is how many processes are waiting in Acquire for a slot of tool.
// Tickets left by dead waiters are removed on the way.
func (s *Slots) Waiting(tool string) (int, error) {
	if err := slotsCheckTool(tool); err != nil {
		return 0, err
	}
	return slotsScan(s.queueDir(tool), "", false)
}

func (s *Slots) slotPath(tool string, i int) string {
	return filepath.Join(s.dir, slotsFileName(tool, i))
}

func (s *Slots) queueDir(tool string) string { return filepath.Join(s.dir, "queue", tool) }

func slotsFileName(tool string, i int) string { return fmt.Sprintf("%s-%d.lock", tool, i) }

// slotsEnqueue creates and locks a ticket in qdir and returns it with its
// name.
func slotsEnqueue(qdir string) (*os.File, string, error) {
	name := fmt.Sprintf("%020d-%d-%08x", time.Now().UnixNano(), os.Getpid(), rand.Uint32())
	tmp := filepath.Join(qdir, "."+name)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_RDWR, fsutil.FileMode)
	if err != nil {
		return nil, "", fmt.Errorf("slots: queue: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, "", fmt.Errorf("slots: queue: lock %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, filepath.Join(qdir, name)); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, "", fmt.Errorf("slots: queue: %w", err)
	}
	return f, name, nil
}

// slotsScan counts the live tickets in qdir that sort before before (all
// of them if before is ""), removing dead ones; with firstOnly it stops at
// the first live one. A missing queue is empty.
func slotsScan(qdir, before string, firstOnly bool) (int, error) {
	ents, err := os.ReadDir(qdir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("slots: queue: %w", err)
	}
	live := 0
	for _, e := range ents { // sorted by name, so by arrival
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue // being created
		}
		if before != "" && name >= before {
			break
		}
		alive, err := slotsTicketAlive(filepath.Join(qdir, name))
		if err != nil {
			return 0, err
		}
		if alive {
			live++
			if firstOnly {
				break
			}
		}
	}
	return live, nil
}

// slotsTicketAlive reports whether a waiter holds the ticket at path; a
// ticket nobody holds is removed.
func slotsTicketAlive(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil // its waiter got a slot or gave up
	}
	if err != nil {
		return false, fmt.Errorf("slots: queue: %w", err)
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("slots: queue: lock %s: %w", path, err)
	}
	os.Remove(path) // dead waiter; we hold its lock, so nobody else revives it
	return false, nil
}

// slotsCheck validates a tool name (it becomes part of file names) and a
// slot count.
func slotsCheck(tool string, max int) error {
	if err := slotsCheckTool(tool); err != nil {
		return err
	}
	if max <= 0 {
		return fmt.Errorf("slots for %s: max_concurrent %d must be positive", tool, max)
	}
	return nil
}

func slotsCheckTool(tool string) error {
	ok := tool != "" && len(tool) <= 64 && tool[0] != '.' && tool[0] != '-'
	for _, c := range tool {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("slots: invalid tool name %q", tool)
	}
	return nil
}
