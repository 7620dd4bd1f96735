// Package events defines csa's normalised event record and its JSONL file:
// one {seq, ts, type, data} object per line, appended by a session's single
// writer (its supervisor).
package events

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

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
	SessionEnded   = "session.ended"
	Warning        = "warning"
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
type Writer struct {
	mu  sync.Mutex
	f   *os.File
	seq int64
	now func() time.Time
}

// OpenWriter opens path for appending; seq continues after the events
// already in the file, so a resumed session keeps one sequence.
func OpenWriter(path string, now func() time.Time) (*Writer, error) {
	last, _ := lastSeq(path)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open events: %w", err)
	}
	// A crash may have left a torn last line: end it, so the next event
	// starts on a line of its own.
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		b := make([]byte, 1)
		if _, err := f.ReadAt(b, fi.Size()-1); err == nil && b[0] != '\n' {
			f.Write([]byte{'\n'})
		}
	}
	return &Writer{f: f, seq: last, now: now}, nil
}

// Emit appends one event; data is marshalled to JSON.
func (w *Writer) Emit(typ string, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("encode %s event: %w", typ, err)
	}
	keep := verbatim.Of(raw, data)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	line, err := json.Marshal(Event{Seq: w.seq, TS: w.now().UTC(), Type: typ, Data: raw, RawBytes: keep})
	if err != nil {
		return err
	}
	_, err = w.f.Write(append(line, '\n'))
	return err
}

// Close closes the file.
func (w *Writer) Close() error { return w.f.Close() }

// Read returns the events in r; lines that are not events are skipped and
// counted, because a crash may leave a torn last line.
func Read(r io.Reader) (evs []Event, bad int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
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
