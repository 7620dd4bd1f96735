package workflow

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/lock"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/verbatim"
)

// Journal record types, in the order a run writes them.
const (
	RecRunStarted   = "run.started"
	RecRunResumed   = "run.resumed"
	RecStepStarted  = "step.started"  // an attempt begins (before anything is started; an agent's names its session)
	RecStepSession  = "step.session"  // an agent attempt's session was launched
	RecStepAttempt  = "step.attempt"  // an attempt failed and another follows
	RecStepFinished = "step.finished" // the step's final result
	RecRunFinished  = "run.finished"
)

// Record is one line of a run's journal.
type Record struct {
	TS        time.Time `json:"ts"`
	Type      string    `json:"type"`
	Key       string    `json:"key,omitempty"`
	Attempt   int       `json:"attempt,omitempty"`
	Tool      string    `json:"tool,omitempty"`
	SessionID string    `json:"session_id,omitempty"`
	Result    *Result   `json:"result,omitempty"`
	Status    string    `json:"status,omitempty"`
	Failure   *Failure  `json:"failure,omitempty"`
	PID       int       `json:"pid,omitempty"`
	// RawBytes keeps the exact bytes of a step's output (or any string
	// above) that is not UTF-8 (internal/verbatim).
	RawBytes map[string]string `json:"raw_bytes,omitempty"`
}

// Store holds workflow runs: <state dir>/workflows/<ID>/, each with
// run.json (the plan and where it runs), journal.jsonl and a lock file.
type Store struct{ dir string }

// OpenStore is the store under csa's state directory.
func OpenStore(stateDir string) *Store { return &Store{dir: filepath.Join(stateDir, "workflows")} }

// RunInfo is run.json: what a resume needs besides the journal.
type RunInfo struct {
	ID        string    `json:"id"`
	Dir       string    `json:"dir"` // the working directory of its steps
	CreatedAt time.Time `json:"created_at"`
	Plan      *Plan     `json:"plan"`
	// RawBytes keeps the exact bytes of the prompts and paths above that
	// are not UTF-8 (internal/verbatim): a resumed run runs them as given.
	RawBytes map[string]string `json:"raw_bytes,omitempty"`
}

// Create records a new run of plan in dir.
func (s *Store) Create(plan *Plan, dir string, now time.Time) (*RunInfo, error) {
	info := &RunInfo{ID: session.NewID(now), Dir: dir, CreatedAt: now.UTC(), Plan: plan}
	if err := fsutil.MkdirPrivate(s.dir); err != nil {
		return nil, err
	}
	if err := fsutil.MkdirPrivate(s.path(info.ID, "")); err != nil {
		return nil, err
	}
	data, err := verbatim.MarshalIndent(info, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := fsutil.WriteFileAtomic(s.path(info.ID, "run.json"), data); err != nil {
		return nil, err
	}
	return info, nil
}

func (s *Store) path(id, name string) string { return filepath.Join(s.dir, id, name) }

// Resolve finds the run a unique id prefix names.
func (s *Store) Resolve(prefix string) (string, error) {
	p, err := session.NormalizePrefix(prefix)
	if err != nil {
		return "", err
	}
	ids, err := s.IDs()
	if err != nil {
		return "", err
	}
	var match []string
	for _, id := range ids {
		if strings.HasPrefix(id, p) {
			match = append(match, id)
		}
	}
	switch len(match) {
	case 0:
		return "", &NotFoundError{Prefix: prefix}
	case 1:
		return match[0], nil
	}
	return "", fmt.Errorf("workflow run id %q is ambiguous: %s", prefix, strings.Join(match, ", "))
}

// NotFoundError: no run has the id.
type NotFoundError struct{ Prefix string }

func (e *NotFoundError) Error() string { return fmt.Sprintf("no workflow run matches %q", e.Prefix) }

// IDs lists the runs, oldest first.
func (s *Store) IDs() ([]string, error) {
	ents, err := os.ReadDir(s.dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range ents {
		if e.IsDir() {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// Info reads a run's run.json.
func (s *Store) Info(id string) (*RunInfo, error) {
	data, err := os.ReadFile(s.path(id, "run.json"))
	if err != nil {
		return nil, err
	}
	var info RunInfo
	if _, err := verbatim.Unmarshal(data, &info); err != nil {
		return nil, fmt.Errorf("workflow run %s: run.json: %w", id, err)
	}
	return &info, nil
}

// ErrRunning: another csa holds the run.
var ErrRunning = errors.New("the workflow run is being run by another csa")

// Lock takes the run's lock for the life of this process; the kernel
// drops it when the process dies, so a crash leaves no stale lock (and a
// dead holder's lock is not refused: lock.Owned).
func (s *Store) Lock(id string) (*lock.Owned, error) {
	l, err := lock.TakeOwned(s.path(id, "lock"))
	if errors.Is(err, lock.ErrOwned) {
		return nil, fmt.Errorf("workflow run %s: %w", id, ErrRunning)
	}
	return l, err
}

// Running reports whether a live csa holds the run's lock now.
func (s *Store) Running(id string) bool {
	live, err := lock.OwnedByLive(s.path(id, "lock"))
	return err == nil && live
}

// Records reads a run's journal. A last line cut short by a crash is
// dropped; a broken line before it is an error.
func (s *Store) Records(id string) ([]Record, error) {
	data, err := os.ReadFile(s.path(id, "journal.jsonl"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var recs []Record
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 64<<20)
	for n := 1; sc.Scan(); n++ {
		var r Record
		if _, err := verbatim.Unmarshal(sc.Bytes(), &r); err != nil {
			if !bytes.HasSuffix(data, []byte("\n")) && n == bytes.Count(data, []byte("\n"))+1 {
				break
			}
			return nil, fmt.Errorf("workflow run %s: journal.jsonl:%d: %w", id, n, err)
		}
		recs = append(recs, r)
	}
	return recs, sc.Err()
}

// Journal appends records to a run's journal, each fsync'd before Append
// returns: a record written is a record kept.
type Journal struct {
	mu  sync.Mutex
	f   *os.File
	now func() time.Time
}

// OpenJournal opens a run's journal for appending.
func (s *Store) OpenJournal(id string, now func() time.Time) (*Journal, error) {
	f, err := os.OpenFile(s.path(id, "journal.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	return &Journal{f: f, now: now}, nil
}

// Append writes one record.
func (j *Journal) Append(r Record) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if r.TS.IsZero() {
		r.TS = j.now().UTC()
	}
	data, err := verbatim.Marshal(&r)
	if err != nil {
		return err
	}
	if _, err := j.f.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return j.f.Sync()
}

// Close closes the journal file.
func (j *Journal) Close() error { return j.f.Close() }
