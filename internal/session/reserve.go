package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/csa-dev/csa/internal/fsutil"
)

// A full disk must not keep a run from recording its end. The store keeps
// space set aside for a final state (ReserveFile, in the sessions
// directory; one per store, not per run: a file made and removed per run
// cost a run 0.4 ms on ext4, docs/performance.md); a state that ends a run
// is written into it when the disk has no other, and the next run sets new
// space aside. Where that
// fails too (another run took it, nothing could be set aside) the
// supervisor leaves NoSpaceFile, so whoever next looks at the session
// says why the end is missing instead of blaming a supervisor that lived.
const (
	ReserveFile = "end.reserve" // beside the sessions directory: space for a state that ends a run
	NoSpaceFile = "end.nospace" // in a session's: its end could not be recorded for lack of space, and why
	// claimedReserve is the reserve once a run has taken it for its end.
	claimedReserve = "end.reserve"
)

// reserveSize bounds the state written from the reserve: far more than a
// state holds but for a long answer (its result).
const reserveSize = 64 << 10

// ReservePath is the store's reserve: beside the sessions directory (as
// its summaries' cache is), where only session directories are.
func (s *Store) ReservePath() string { return filepath.Join(filepath.Dir(s.dir), ReserveFile) }

// Reserve makes sure space is set aside for a state that ends a run,
// should the disk fill up. It fails where the space cannot be had: a full
// disk, a file system that cannot preallocate.
func (s *Store) Reserve() error {
	path := s.ReservePath()
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	err := fsutil.Reserve(path, reserveSize)
	if errors.Is(err, fsutil.ErrNoPrealloc) {
		// Nothing can be set aside here: an empty reserve says so, once
		// rather than at every run.
		os.WriteFile(path, nil, fsutil.FileMode)
	}
	return err
}

// saveFromReserve writes the state that ends a run from the reserve, when
// writing it the usual way failed with err for lack of space. The run
// takes the reserve for itself first (a rename: one run gets it).
func (s *Store) saveFromReserve(id string, data []byte, err error) error {
	if !fsutil.NoSpace(err) {
		return err
	}
	reserve := s.ReservePath()
	if fi, serr := os.Stat(reserve); serr != nil || int64(len(data)) > fi.Size() {
		return err // none set aside, or too small
	}
	own := s.Path(id, claimedReserve)
	if os.Rename(reserve, own) != nil {
		return err // none set aside, or another run took it
	}
	if rerr := fsutil.WriteFileFromRoom(own, s.Path(id, StateFile), data); rerr != nil {
		os.Remove(own)
		return fmt.Errorf("%w; nor from the space set aside: %v", err, rerr)
	}
	return nil
}

// MarkNoSpace records why id's end could not be recorded: the marker is
// made even when the disk has no room for the reason in it.
func (s *Store) MarkNoSpace(id, reason string) error {
	f, err := os.OpenFile(s.Path(id, NoSpaceFile), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fsutil.FileMode)
	if err != nil {
		return fmt.Errorf("mark %s: %w", id, err)
	}
	f.WriteString(reason)
	return f.Close()
}

// NoSpace reports whether id's end went unrecorded for lack of space, and
// why.
func (s *Store) NoSpace(id string) (reason string, ok bool) {
	b, err := os.ReadFile(s.Path(id, NoSpaceFile))
	if err != nil {
		return "", false
	}
	if len(b) == 0 {
		return "no space left on device: the run's end could not be recorded", true
	}
	return string(b), true
}

// ClearNoSpace removes the marker once the end is recorded.
func (s *Store) ClearNoSpace(id string) { os.Remove(s.Path(id, NoSpaceFile)) }
