package events_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/csa-dev/csa/internal/events"
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/testkit/tmpfstest"
)

// wholeEvents checks that every line of path is an event, the file ends
// with a newline and seqs run from 1 without a gap, and returns the events.
func wholeEvents(t *testing.T, path string) []events.Event {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Fatalf("%s ends in a torn line: ...%q", path, b[max(0, len(b)-80):])
	}
	evs, bad, err := events.Read(bytes.NewReader(b))
	if err != nil || bad != 0 {
		t.Fatalf("%s: %d lines are not events (%v)", path, bad, err)
	}
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d: a failed write took a seq", i, e.Seq)
		}
	}
	return evs
}

// On a full disk a line that cannot be written whole is cut off again,
// ordinary events stop before they eat the room kept for session.ended,
// and session.ended is written even after the disk has been filled again.
func TestEmitOnFullDisk(t *testing.T) {
	dir := tmpfstest.Mount(t, 256<<10)
	path := filepath.Join(dir, "events.jsonl")
	w := open(t, path)
	defer w.Close()
	var told []error
	w.OnFailure(func(err error) { told = append(told, err) })
	if err := w.Emit(events.SessionCreated, nil); err != nil {
		t.Fatal(err)
	}
	tmpfstest.Fill(t, dir)

	pad := strings.Repeat("p", 1000)
	var err error
	for i := 0; i < 1000 && err == nil; i++ {
		err = w.Emit("text", map[string]string{"pad": pad})
	}
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), path) {
		t.Fatalf("an event that found no room: %v, want ENOSPC naming %s", err, path)
	}
	if len(told) != 1 || told[0] != err {
		t.Errorf("OnFailure was told %v, want the one failure %v", told, err)
	}
	wholeEvents(t, path)

	// A last line larger than the room kept for it fails part-way: it is
	// cut off, and the room it had taken is taken again.
	err = w.Emit(events.SessionEnded, map[string]string{"reason": strings.Repeat("r", 40<<10)})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("an oversized session.ended on a full disk: %v, want ENOSPC", err)
	}
	wholeEvents(t, path)
	tmpfstest.Fill(t, dir) // whatever truncating gave back is gone again

	// More than a page: it needs the room kept for it, not the end of the
	// last page written.
	reason := "write " + strings.Repeat("d/", 2500) + "output.log: no space left on device"
	if err := w.Emit(events.SessionEnded, map[string]string{"reason": reason}); err != nil {
		t.Fatalf("session.ended on a full disk: %v", err)
	}
	evs := wholeEvents(t, path)
	if last := evs[len(evs)-1]; last.Type != events.SessionEnded {
		t.Fatalf("last event %s, want session.ended", last.Type)
	}
}

// The room kept past the end of the file is given back when it closes.
func TestCloseGivesBackRoom(t *testing.T) {
	dir := tmpfstest.Mount(t, 1<<20)
	before := tmpfstest.Free(t, dir)
	w := open(t, filepath.Join(dir, "events.jsonl"))
	if err := w.Emit(events.SessionCreated, nil); err != nil {
		t.Fatal(err)
	}
	if kept := before - tmpfstest.Free(t, dir); kept < 12<<10 {
		t.Errorf("an open writer keeps %d bytes, want room for the run's last events", kept)
	}
	w.Close()
	if after := tmpfstest.Free(t, dir); before-after > 4096 {
		t.Errorf("%d bytes still taken after Close, want the one page of the event", before-after)
	}
}

// A torn last line left by a crash is cut off when the file is opened
// again: the file holds whole events only.
func TestOpenWriterCutsTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	good := `{"seq":1,"ts":"2025-01-01T00:00:00Z","type":"session.created"}` + "\n"
	if err := os.WriteFile(path, []byte(good+`{"seq":2,"ts":"2025-01-01T00:0`), 0o600); err != nil {
		t.Fatal(err)
	}
	w := open(t, path)
	if err := w.Emit(events.SessionEnded, nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	evs := wholeEvents(t, path)
	if len(evs) != 2 || evs[1].Type != events.SessionEnded {
		t.Fatalf("events %+v, want session.created then session.ended", evs)
	}
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), good) {
		t.Errorf("the whole line before the torn one was not kept: %q", b)
	}
	var e events.Event
	json.Unmarshal([]byte(strings.SplitN(string(b), "\n", 3)[1]), &e)
	if e.Seq != 2 {
		t.Errorf("the next event has seq %d, want 2", e.Seq)
	}
}

// The room a writer whose process died kept past the end of the file is
// given back by GiveBackRoom.
func TestGiveBackRoom(t *testing.T) {
	dir := tmpfstest.Mount(t, 1<<20)
	path := filepath.Join(dir, "events.jsonl")
	line := `{"seq":1,"ts":"2025-01-01T00:00:00Z","type":"session.created"}` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	before := tmpfstest.Free(t, dir)
	// What a writer killed before its Close leaves.
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := fsutil.KeepRoom(f, int64(len(line)), 40<<10); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if tmpfstest.Free(t, dir) > before-32<<10 {
		t.Fatal("no room was kept")
	}
	if err := events.GiveBackRoom(path); err != nil {
		t.Fatal(err)
	}
	if after := tmpfstest.Free(t, dir); after != before {
		t.Errorf("%d bytes free after GiveBackRoom, %d before the room was kept", after, before)
	}
	if b, _ := os.ReadFile(path); string(b) != line {
		t.Errorf("the events changed: %q", b)
	}
}

// On a file system that cannot keep room ahead, events are written as
// ever.
func TestEmitWithoutPrealloc(t *testing.T) {
	path := filepath.Join(tmpfstest.MountNoPrealloc(t), "events.jsonl")
	w := open(t, path)
	for _, typ := range []string{events.SessionCreated, "text", events.SessionEnded} {
		if err := w.Emit(typ, map[string]string{"pad": strings.Repeat("p", 3000)}); err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if evs := wholeEvents(t, path); len(evs) != 3 {
		t.Fatalf("%d events, want 3", len(evs))
	}
}
