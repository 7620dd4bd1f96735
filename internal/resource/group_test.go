package resource

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeV1 is a cgroup v1 layout in a temporary directory: plain
// directories take the place of the memory and pids hierarchies.
func fakeV1(t *testing.T) *Capabilities {
	root := t.TempDir()
	c := &Capabilities{MemoryDir: filepath.Join(root, "memory"), PidsDir: filepath.Join(root, "pids")}
	for _, d := range []string{c.MemoryDir, c.PidsDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

const testID = "01M00000000000000000000000"

// leftover makes a group directory as a dead run leaves it, made age ago.
func leftover(t *testing.T, root string, age time.Duration) string {
	dir := filepath.Join(root, GroupName(testID))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-age)
	if err := os.Chtimes(dir, at, at); err != nil {
		t.Fatal(err)
	}
	return dir
}

func inUse(t *testing.T, err error) *InUseError {
	t.Helper()
	var e *InUseError
	if !errors.As(err, &e) {
		t.Fatalf("want an InUseError, got %v", err)
	}
	return e
}

// A run's group is held by the process that made it until Remove: gc,
// from any state directory, keeps it even when empty and old.
func TestGroupHeldUntilRemoved(t *testing.T) {
	c := fakeV1(t)
	g, err := NewGroup(c, LayerCgroup1, testID, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Add(time.Hour) // however old it looks
	for _, dir := range []string{filepath.Join(c.MemoryDir, GroupName(testID)), filepath.Join(c.PidsDir, GroupName(testID))} {
		if e := inUse(t, CheckOrphan(dir, time.Minute, now)); !e.Live || e.Reason != "a live csa run holds it" {
			t.Fatalf("CheckOrphan(%s): %+v", dir, e)
		}
		if e := inUse(t, RemoveOrphan(dir, time.Minute, now)); !e.Live {
			t.Fatalf("RemoveOrphan(%s): %+v", dir, e)
		}
		if _, err := os.Stat(dir); err != nil {
			t.Fatalf("a held group was touched: %v", err)
		}
	}
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	if got := Leftovers(c); len(got) != 0 {
		t.Fatalf("Remove left %v", got)
	}
}

func TestCheckOrphan(t *testing.T) {
	now := time.Now()

	// Old and empty, nobody holding it: an orphan, removed.
	c := fakeV1(t)
	dir := leftover(t, c.PidsDir, time.Hour)
	if err := CheckOrphan(dir, time.Minute, now); err != nil {
		t.Fatalf("old empty group: %v", err)
	}
	if err := RemoveOrphan(dir, time.Minute, now); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("orphan not removed: %v", err)
	}
	if err := RemoveOrphan(dir, time.Minute, now); err != nil {
		t.Fatalf("a group already gone: %v", err)
	}

	// Young: its run may be about to take its lock.
	c = fakeV1(t)
	dir = leftover(t, c.PidsDir, 5*time.Second)
	if e := inUse(t, RemoveOrphan(dir, time.Minute, now)); !e.Live || !strings.HasPrefix(e.Reason, "made 5s ago") {
		t.Fatalf("young group: %+v", e)
	}

	// Processes in it: never removed, said to be unowned.
	c = fakeV1(t)
	dir = leftover(t, c.PidsDir, time.Hour)
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte("42\n43\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(dir, now.Add(-time.Hour), now.Add(-time.Hour))
	for _, err := range []error{CheckOrphan(dir, time.Minute, now), RemoveOrphan(dir, time.Minute, now)} {
		if e := inUse(t, err); e.Live || e.Reason != "2 processes in it, and no csa run holds it" {
			t.Fatalf("group with processes: %+v", e)
		}
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
}

// Leftovers finds csa-<ULID> directories only.
func TestLeftovers(t *testing.T) {
	c := fakeV1(t)
	for _, d := range []string{
		filepath.Join(c.MemoryDir, GroupName(testID)), filepath.Join(c.PidsDir, GroupName(testID)),
		filepath.Join(c.PidsDir, "csa-short"), filepath.Join(c.PidsDir, "other-"+testID),
	} {
		os.Mkdir(d, 0o755)
	}
	got := Leftovers(c)
	if len(got) != 2 || got[0].ID != testID || got[1].ID != testID || got[0].Dir == got[1].Dir {
		t.Fatalf("Leftovers = %+v", got)
	}
}
