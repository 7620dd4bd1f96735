package batch

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/taskgraph"
	"github.com/csa-dev/csa/internal/verbatim"
)

// record is one line of a batch's journal.
type record struct {
	Event   string    `json:"event"` // starting, started, ended, finished
	Task    string    `json:"task,omitempty"`
	Session string    `json:"session,omitempty"`
	At      time.Time `json:"at"`
	// ended
	OK     bool   `json:"ok,omitempty"`
	State  string `json:"state,omitempty"`
	Class  string `json:"class,omitempty"`
	Reason string `json:"reason,omitempty"`
	// RawBytes: the exact bytes of a reason that is not UTF-8
	// (internal/verbatim).
	RawBytes map[string]string `json:"raw_bytes,omitempty"`
}

// journal appends records to journal.jsonl, each written whole and
// fsync'd before the scheduler goes on: a run is recorded before it is
// waited for, so a csa batch killed at any point leaves no run unknown.
// It is the batch's taskgraph.Journal.
type journal struct {
	mu  sync.Mutex
	f   *os.File
	now func() time.Time
}

func journalPath(dir string) string { return filepath.Join(dir, "journal.jsonl") }

// openJournal opens dir's journal to append, dropping a last line a
// killed writer left torn (its holder of the run lock is gone).
func openJournal(dir string, now func() time.Time) (*journal, error) {
	path := journalPath(dir)
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, fsutil.FileMode)
	if err != nil {
		return nil, err
	}
	keep := int64(bytes.LastIndexByte(data, '\n') + 1)
	if err := f.Truncate(keep); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(keep, 0); err != nil {
		f.Close()
		return nil, err
	}
	return &journal{f: f, now: now}, nil
}

func (j *journal) add(r record) error {
	line, err := verbatim.Marshal(&r)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := j.f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// Starting records the session a task's run is to be, before it is
// launched: a csa batch killed before it records the run started leaves
// no run unknown (resume launches that id again, or waits for it).
func (j *journal) Starting(_ context.Context, t *taskgraph.Task, sid string, at time.Time) error {
	return j.add(record{Event: "starting", Task: t.ID, Session: sid, At: at.UTC()})
}

func (j *journal) Started(_ context.Context, t *taskgraph.Task, sid string, at time.Time) error {
	return j.add(record{Event: "started", Task: t.ID, Session: sid, At: at.UTC()})
}

func (j *journal) Ended(_ context.Context, t *taskgraph.Task, sid string, o taskgraph.Outcome, at time.Time) error {
	return j.add(record{Event: "ended", Task: t.ID, Session: sid, At: at.UTC(),
		OK: o.OK, State: o.State, Class: o.Class, Reason: o.Reason})
}

// finished records that a csa batch stopped by itself (not killed).
func (j *journal) finished() error { return j.add(record{Event: "finished", At: j.now().UTC()}) }

func (j *journal) Close() error { return j.f.Close() }

// progress is what a journal says of one task: its last run.
type progress struct {
	Session        string
	Started, Ended time.Time
	Outcome        *taskgraph.Outcome // nil until it ended
}

// replay reads dir's journal: each task's last run. A torn last line (a
// writer killed mid-line) is ignored; a bad line before it is an error.
func replay(dir string) (map[string]*progress, error) {
	data, err := os.ReadFile(journalPath(dir))
	if os.IsNotExist(err) {
		return map[string]*progress{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]*progress{}
	lines := bytes.Split(data, []byte("\n"))
	for i, line := range lines {
		if len(line) == 0 {
			continue
		}
		var r record
		if _, err := verbatim.Unmarshal(line, &r); err != nil {
			if i == len(lines)-1 { // torn: no newline after it
				break
			}
			return nil, fmt.Errorf("%s:%d: %v", journalPath(dir), i+1, err)
		}
		switch r.Event {
		case "starting":
			out[r.Task] = &progress{Session: r.Session}
		case "started":
			out[r.Task] = &progress{Session: r.Session, Started: r.At}
		case "ended":
			p := out[r.Task]
			if p == nil || p.Session != r.Session {
				p = &progress{Session: r.Session}
				out[r.Task] = p
			}
			p.Ended = r.At
			p.Outcome = &taskgraph.Outcome{OK: r.OK, State: r.State, Class: r.Class, Reason: r.Reason}
		}
	}
	return out, nil
}
