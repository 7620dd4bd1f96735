package fsutil_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/testkit/tmpfstest"
)

// Space reserved while there is some takes a file written into it on a
// full disk; a file too big for it is refused and path left as it was.
func TestWriteFileFromRoom(t *testing.T) {
	dir := tmpfstest.Mount(t, 256<<10)
	room, path := filepath.Join(dir, "room"), filepath.Join(dir, "state.toml")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := fsutil.Reserve(room, 16<<10); err != nil {
		t.Fatal(err)
	}
	tmpfstest.Fill(t, dir)
	data := bytes.Repeat([]byte("new state\n"), 1000) // pages more than "old" had
	if err := fsutil.WriteFileAtomic(path, data); !fsutil.NoSpace(err) {
		t.Fatalf("WriteFileAtomic on a full disk: %v, want no space", err)
	}
	if err := fsutil.WriteFileFromRoom(room, path, bytes.Repeat(data, 2)); err == nil {
		t.Fatal("20 KB written from a 16 KB room")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("a refused write changed the file: %d bytes", len(b))
	}
	if err := fsutil.WriteFileFromRoom(room, path, data); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, data) {
		t.Fatalf("read back %d bytes, want the %d written", len(b), len(data))
	}
	if _, err := os.Stat(room); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the room is still there once used: %v", err)
	}
}

// Where there is no space to reserve, Reserve says so and leaves nothing.
func TestReserveOnFullDisk(t *testing.T) {
	dir := tmpfstest.Mount(t, 256<<10)
	tmpfstest.Fill(t, dir)
	room := filepath.Join(dir, "room")
	if err := fsutil.Reserve(room, 64<<10); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Reserve on a full disk: %v, want ENOSPC", err)
	}
	if names, _ := filepath.Glob(room + "*"); len(names) > 0 {
		t.Errorf("a failed Reserve left %v", names)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, ".room*")); len(names) > 0 {
		t.Errorf("a failed Reserve left %v", names)
	}
}

// BenchmarkSetAside is what each run pays for the space set aside for a
// full disk: events.jsonl's room kept and given back (the store's reserve
// for the final state is made once, not per run: BenchmarkReserve). On the
// temporary directory's file system and on /dev/shm (tmpfs).
func BenchmarkSetAside(b *testing.B) {
	for _, where := range []string{"disk", "tmpfs"} {
		b.Run(where, func(b *testing.B) {
			f, err := os.Create(filepath.Join(benchDir(b, where), "events.jsonl"))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			for range b.N {
				if err := fsutil.KeepRoom(f, 0, 16<<10); err != nil {
					b.Fatal(err)
				}
				if err := fsutil.FreeRoom(f, 0, 16<<10); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReserve is a reserve made and removed: what a run would pay
// for a reserve of its own.
func BenchmarkReserve(b *testing.B) {
	for _, where := range []string{"disk", "tmpfs"} {
		b.Run(where, func(b *testing.B) {
			room := filepath.Join(benchDir(b, where), "end.reserve")
			for range b.N {
				if err := fsutil.Reserve(room, 64<<10); err != nil {
					b.Fatal(err)
				}
				os.Remove(room)
			}
		})
	}
}

func benchDir(b *testing.B, where string) string {
	if where == "disk" {
		return b.TempDir()
	}
	dir, err := os.MkdirTemp("/dev/shm", "setaside-")
	if err != nil {
		b.Skip("no /dev/shm")
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
