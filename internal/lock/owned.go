package lock

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// Owned is an exclusive lock a process holds for its life while it starts
// others (csa's runners: batch, todo run, workflow), with the holder named
// in the file.
//
// flock belongs to the open file, and fork gives a child a copy of every
// descriptor, close-on-exec or not, which the child keeps until its exec.
// A holder killed while it starts a program therefore leaves its lock held
// for a moment after its death: whoever comes next must not be refused by
// a holder that is gone (issue 23: `csa batch resume` right after a
// SIGKILL of the batch was refused "busy").
type Owned struct{ f *os.File }

// ErrOwned refuses a lock a live process holds.
var ErrOwned = errors.New("held by a live process")

// ownerGone bounds the wait for a lock whose holder is gone: the copy a
// forked child keeps lasts until that child's exec, a moment even on a
// loaded machine. Reaching the bound means something else holds it.
const ownerGone = 10 * time.Second

// TakeOwned takes the lock on path for this process and names it there.
// A lock held by a live process is refused with ErrOwned at once; one
// whose holder is dead, or not named yet, is waited for (ownerGone at
// most).
func TakeOwned(path string) (*Owned, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	free, err := awaitOwner(path, func() (bool, error) { return tryFlock(f) })
	if err == nil && !free {
		err = fmt.Errorf("lock %s: %w", path, ErrOwned)
	}
	if err == nil {
		err = nameOwner(f)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &Owned{f: f}, nil
}

// Release forgets the holder's name, then lets go of the lock: a holder
// that lives on after releasing is not taken for the lock's owner.
func (o *Owned) Release() error {
	o.f.Truncate(0)
	return o.f.Close()
}

// OwnedByLive reports whether a live process holds the lock on path: one
// held only by what a dead holder left (a forked child's copy) is not.
func OwnedByLive(path string) (bool, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	free, err := awaitOwner(path, func() (bool, error) {
		held, err := Held(path)
		return !held, err
	})
	return !free, err
}

// awaitOwner calls try until it finds the lock free (true), or the lock's
// named holder is alive, or ownerGone passes (false).
func awaitOwner(path string, try func() (bool, error)) (bool, error) {
	deadline := time.Now().Add(ownerGone)
	for {
		free, err := try()
		if err != nil || free {
			return free, err
		}
		if ownerAlive(path) || time.Now().After(deadline) {
			return false, nil
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func tryFlock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return true, nil
}

// nameOwner writes "PID STARTTIME" into the lock file: the start time
// tells the holder from a later process given the same pid.
func nameOwner(f *os.File) error {
	pid := os.Getpid()
	start, err := startTime(pid)
	if err != nil {
		return fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	if err := f.Truncate(0); err != nil {
		return fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	if _, err := f.WriteAt([]byte(fmt.Sprintf("%d %d\n", pid, start)), 0); err != nil {
		return fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return nil
}

// ownerAlive reports whether the process named in the lock file at path
// runs: not gone, not a zombie (whose files are closed), not a later
// process with its pid.
func ownerAlive(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var pid int
	var start uint64
	if n, _ := fmt.Sscanf(string(data), "%d %d", &pid, &start); n != 2 || pid <= 0 {
		return false
	}
	st, state, err := procStat(pid)
	return err == nil && st == start && state != 'Z' && state != 'X'
}

func startTime(pid int) (uint64, error) {
	st, _, err := procStat(pid)
	return st, err
}

// procStat reads a process's start time (clock ticks after boot) and state
// from /proc/PID/stat.
func procStat(pid int) (start uint64, state byte, err error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	// The command name, in parentheses, may hold spaces and parentheses:
	// the fields that matter come after the last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: too short", pid)
	}
	start, err = strconv.ParseUint(string(f[19]), 10, 64)
	return start, f[0][0], err
}
