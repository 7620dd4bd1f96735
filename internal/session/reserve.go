package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/csa-dev/csa/internal/fsutil"
)

// A full disk must not keep a run from recording its end. The supervisor
// sets space aside for the final state when the run begins (ReserveFile),
// and a state that ends a run is written into it when the disk has no
// other; where even that fails, it leaves NoSpaceFile, so whoever next
// looks at the session says why the end is missing instead of blaming a
// supervisor that lived.
const (
	ReserveFile = "end.reserve" // space for the state that ends the run
	NoSpaceFile = "end.nospace" // the end could not be recorded for lack of space: why
)

// reserveSize bounds the state written from the reserve: far more than a
// state holds but for a long answer (its result).
const reserveSize = 64 << 10

// Reserve sets aside space in id's directory for the state that ends its
// run. It fails where the space cannot be had: a full disk, a file system
// that cannot preallocate.
func (s *Store) Reserve(id string) error {
	return fsutil.Reserve(s.Path(id, ReserveFile), reserveSize)
}

// Unreserve gives back the space Reserve set aside, if it was not used.
func (s *Store) Unreserve(id string) { os.Remove(s.Path(id, ReserveFile)) }

// saveFromReserve writes the state that ends a run into the reserve,
// when writing it the usual way failed with err for lack of space.
func (s *Store) saveFromReserve(id string, data []byte, err error) error {
	if !fsutil.NoSpace(err) {
		return err
	}
	rerr := fsutil.WriteFileFromRoom(s.Path(id, ReserveFile), s.Path(id, StateFile), data)
	switch {
	case rerr == nil:
		return nil
	case errors.Is(rerr, fs.ErrNotExist):
		return err
	}
	return fmt.Errorf("%w; nor in the space set aside: %v", err, rerr)
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
