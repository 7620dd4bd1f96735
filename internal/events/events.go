// Package events defines csa's normalised event record and its JSONL file:
// one {seq, ts, type, data} object per line, appended by a session's single
// writer (its supervisor).
package events

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/verbatim"
)

// Event types written by the core. Agent adapters add text, tool_call,
// tool_result, usage and error.
const (
	SessionCreated = "session.created"
	ProcessStarted = "process.started"
	ProcessExited  = "process.exited"
	SignalSent     = "signal.sent"
	TimeoutHit     = "timeout"
	// BudgetHit: the run's tree passed its --max-cost {max_cost_usd,
	// reason}.
	BudgetHit    = "budget"
	SessionEnded = "session.ended"
	Warning      = "warning"
	// SandboxDenied is a connection the run's egress proxy refused:
	// {host, port, proto, operation, reason}.
	SandboxDenied = "sandbox.denied"
	// Hook is a run hook's outcome, PromptGuard a prompt guard's
	// (internal/runhooks.Result).
	Hook        = "hook"
	PromptGuard = "prompt_guard"
)

// Event is one line of events.jsonl.
type Event struct {
	Seq  int64           `json:"seq"`
	TS   time.Time       `json:"ts"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data,omitempty"`
	// RawBytes keeps, by JSON Pointer into Data, the exact bytes of the
	// strings of Data that are not UTF-8 (which Data shows with U+FFFD):
	// an agent's output is any bytes (internal/verbatim). Decode puts them
	// back.
	RawBytes map[string]string `json:"raw_bytes,omitempty"`
}

// Decode unmarshals the event's data into v, a pointer, with the exact
// bytes of its strings.
func (e *Event) Decode(v any) error {
	if err := json.Unmarshal(e.Data, v); err != nil {
		return err
	}
	verbatim.Restore(v, e.RawBytes)
	return nil
}

// Writer appends events with increasing sequence numbers. It is safe for
// concurrent use.
//
// A full disk must not leave a torn line, nor keep a run from recording
// its end: a line that cannot be written whole is cut off again, and the
// writer keeps allocated room past the end of the file, of which the last
// endRoom bytes only the line that ends a run (session.ended) may use.
type Writer struct {
	mu   sync.Mutex
	f    *os.File
	seq  int64
	now  func() time.Time
	size int64 // of the file: the end of its last whole line
	// room is where the allocated space past the end ends; -1 where the
	// file system cannot allocate ahead.
	room   int64
	failed func(error)
}

// maxLine is the longest line Read reads.
const maxLine = 64 << 20

// keptRoom is how much space a writer allocates past the end of the file
// at a time, endRoom the part of it kept for the line that ends a run (its
// reason may name a long path).
const (
	keptRoom = 16 << 10
	endRoom  = 8 << 10
)

// OpenWriter opens path for appending; seq continues after the events
// already in the file, so a resumed session keeps one sequence.
func OpenWriter(path string, now func() time.Time) (*Writer, error) {
	last, _ := lastSeq(path)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open events: %w", err)
	}
	w := &Writer{f: f, seq: last, now: now}
	if fi, err := f.Stat(); err == nil {
		w.size = fi.Size()
	}
	// A crash may have left a torn last line: cut it off, so the file
	// holds whole events and the next one starts on a line of its own.
	w.size = wholeLines(f, w.size)
	return w, nil
}

// wholeLines truncates f after its last newline and returns its new size.
func wholeLines(f *os.File, size int64) int64 {
	const chunk = 4096
	end := size
	buf := make([]byte, chunk)
	for end > 0 {
		n := min(end, chunk)
		if _, err := f.ReadAt(buf[:n], end-n); err != nil {
			return size
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			end = end - n + int64(i) + 1
			break
		}
		end -= n
	}
	if end == size || f.Truncate(end) != nil {
		return size
	}
	return end
}

// OnFailure has fn told of every event that could not be written (a full
// disk): the caller decides whether a run can go on unrecorded. fn is
// called outside the writer's lock.
func (w *Writer) OnFailure(fn func(error)) {
	w.mu.Lock()
	w.failed = fn
	w.mu.Unlock()
}

// Emit appends one event; data is marshalled to JSON. An event that cannot
// be written whole leaves nothing in the file and takes no seq.
func (w *Writer) Emit(typ string, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("encode %s event: %w", typ, err)
	}
	keep := verbatim.Of(raw, data)
	w.mu.Lock()
	failed, err := w.failed, w.append(typ, raw, keep)
	w.mu.Unlock()
	if err != nil && failed != nil {
		failed(err)
	}
	return err
}

func (w *Writer) append(typ string, raw json.RawMessage, keep map[string]string) error {
	line, err := json.Marshal(Event{Seq: w.seq + 1, TS: w.now().UTC(), Type: typ, Data: raw, RawBytes: keep})
	if err != nil {
		return err
	}
	line = append(line, '\n')
	if err := w.makeRoom(int64(len(line)), typ == SessionEnded); err != nil {
		return err
	}
	if n, err := w.f.Write(line); err != nil {
		if n > 0 {
			err = w.cutOff(err)
		}
		return err
	}
	w.seq++
	w.size += int64(len(line))
	return nil
}

// cutOff truncates the file back to its last whole line after a write
// that failed (err) part-way. Truncating frees the room past the end too:
// it is taken again at once, before another writer is likely to.
func (w *Writer) cutOff(err error) error {
	if terr := w.f.Truncate(w.size); terr != nil {
		return fmt.Errorf("%w; the torn line could not be cut off: %v", err, terr)
	}
	if w.room > w.size && fsutil.KeepRoom(w.f, w.size, w.room-w.size) != nil {
		w.room = w.size
	}
	return err
}

// makeRoom allocates room for n more bytes, and endRoom beyond them
// unless the line is the last. A line that needs room the disk no longer
// has is refused, except the last, which may use what is kept for it.
func (w *Writer) makeRoom(n int64, last bool) error {
	if w.room < 0 {
		return nil
	}
	need := w.size + n
	if !last {
		need += endRoom
	}
	if need <= w.room {
		return nil
	}
	err := fsutil.KeepRoom(w.f, w.size, n+keptRoom)
	switch {
	case err == nil:
		w.room = w.size + n + keptRoom
		return nil
	case errors.Is(err, fsutil.ErrNoPrealloc):
		w.room = -1
		return nil
	case last:
		return nil // whatever fits
	}
	// Said as the write it stands for.
	if e := errors.Unwrap(err); e != nil {
		err = e
	}
	return &os.PathError{Op: "write", Path: w.f.Name(), Err: err}
}

// Close gives back the room kept past the end of the file and closes it.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.room > w.size {
		fsutil.FreeRoom(w.f, w.size, w.room-w.size)
	}
	return w.f.Close()
}

// GiveBackRoom gives back the room a writer kept past the end of path and
// could not give back itself: its process died.
func GiveBackRoom(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	// However long its last line, the room went no further than this.
	return fsutil.FreeRoom(f, fi.Size(), maxLine+keptRoom)
}

// Read returns the events in r; lines that are not events are skipped and
// counted, because a crash may leave a torn last line.
func Read(r io.Reader) (evs []Event, bad int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	for sc.Scan() {
		var e Event
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Type == "" {
			bad++
			continue
		}
		evs = append(evs, e)
	}
	return evs, bad, sc.Err()
}

func lastSeq(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	evs, _, err := Read(f)
	var max int64
	for _, e := range evs {
		if e.Seq > max {
			max = e.Seq
		}
	}
	return max, err
}
