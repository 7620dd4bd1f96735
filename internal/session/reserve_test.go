package session_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/testkit/tmpfstest"
)

// On a full disk the state that ends a run is written into the space the
// store set aside, and reads back whole; a running state, which ends
// nothing, does not use it, and a second run finds it taken.
func TestSaveEndOnFullDisk(t *testing.T) {
	dir := tmpfstest.Mount(t, 512<<10)
	s, err := session.Open(filepath.Join(dir, "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	id, other := idAt(1), idAt(2)
	st, st2 := create(t, s, id, ""), create(t, s, other, "")
	if err := s.Reserve(); err != nil {
		t.Fatal(err)
	}
	reserve := s.ReservePath()
	tmpfstest.Fill(t, dir)

	// A result of several pages: no room left in a page already had.
	result := strings.Repeat("an answer\n", 2000)
	for _, st := range []*session.State{st, st2} {
		if err := st.Move(session.Running); err != nil {
			t.Fatal(err)
		}
		st.Result = result
	}
	if err := s.Save(st); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("save a running state on a full disk: %v, want ENOSPC", err)
	}
	if _, err := os.Stat(reserve); err != nil {
		t.Fatalf("the reserve went to a running state: %v", err)
	}
	st.Reason = "csa stopped the run, which it could no longer record: write output.log: no space left on device"
	st.Failure = &session.Failure{Class: session.FailNoSpace, Message: st.Reason}
	if err := st.Move(session.Failed); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(st); err != nil {
		t.Fatalf("save the end on a full disk: %v", err)
	}
	got, err := s.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != session.Failed || got.Failure == nil || got.Failure.Class != session.FailNoSpace || got.Result != result {
		t.Fatalf("read back %s %+v (%d bytes of result), want what was saved", got.Status, got.Failure, len(got.Result))
	}
	if mode(t, s.Path(id, session.StateFile)) != 0o600 {
		t.Errorf("state file mode %v, want 0600", mode(t, s.Path(id, session.StateFile)))
	}
	if _, err := os.Stat(reserve); !os.IsNotExist(err) {
		t.Errorf("the reserve is still there after it was used: %v", err)
	}

	// What the first end did not need of the reserve went back to the
	// disk: fill it again.
	tmpfstest.Fill(t, dir)
	st2.Status = session.Failed
	if err := s.Save(st2); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("a second end on the full disk, the reserve used: %v, want ENOSPC", err)
	}
	if got, err := s.Load(id); err != nil || got.Result != result {
		t.Fatalf("the first end changed: %v", err)
	}
}

// A marker left by a supervisor that could not record the end names why,
// or at least says there was no space when the reason itself did not fit.
func TestNoSpaceMarker(t *testing.T) {
	s := newStore(t)
	id := idAt(2)
	create(t, s, id, "")
	if _, ok := s.NoSpace(id); ok {
		t.Fatal("a session without a marker reads as out of space")
	}
	if err := s.MarkNoSpace(id, "write /x/output.log: no space left on device"); err != nil {
		t.Fatal(err)
	}
	if why, ok := s.NoSpace(id); !ok || why != "write /x/output.log: no space left on device" {
		t.Errorf("NoSpace = %q, %v", why, ok)
	}
	os.Truncate(s.Path(id, session.NoSpaceFile), 0)
	if why, ok := s.NoSpace(id); !ok || !strings.Contains(why, "no space left on device") {
		t.Errorf("empty marker: NoSpace = %q, %v", why, ok)
	}
	s.ClearNoSpace(id)
	if _, ok := s.NoSpace(id); ok {
		t.Error("the marker is still read after ClearNoSpace")
	}
}

// Where nothing can be set aside (no fallocate), Reserve says so once and
// leaves an empty reserve, so that later runs do not try again; runs and
// their ends are saved as ever.
func TestReserveWithoutPrealloc(t *testing.T) {
	s, err := session.Open(filepath.Join(tmpfstest.MountNoPrealloc(t), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Reserve(); !errors.Is(err, fsutil.ErrNoPrealloc) {
		t.Fatalf("Reserve on ramfs: %v, want ErrNoPrealloc", err)
	}
	if err := s.Reserve(); err != nil {
		t.Fatalf("Reserve again: %v, want nothing tried", err)
	}
	if fi, err := os.Stat(s.ReservePath()); err != nil || fi.Size() != 0 {
		t.Fatalf("reserve: %v, %v; want an empty one", fi, err)
	}
	id := idAt(3)
	st := create(t, s, id, "")
	st.Status = session.Completed
	if err := s.Save(st); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Load(id); err != nil || got.Status != session.Completed {
		t.Fatalf("load: %+v, %v", got, err)
	}
}
