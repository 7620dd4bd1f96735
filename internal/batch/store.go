package batch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/lock"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/verbatim"
)

// Store keeps a project's batches, one directory each: <dir>/<ID>/ holds
// batch.json (the tasks and options, written once before anything runs),
// journal.jsonl (what became of each task's run) and run.lock (held by
// the one csa batch running it).
type Store struct{ Dir string }

// ProjectStore is the batch store of a project, its state directory
// being projectDir (csa's projects/SLUG).
func ProjectStore(projectDir string) *Store { return &Store{Dir: filepath.Join(projectDir, "batches")} }

// Batch is a batch as recorded when it was created.
type Batch struct {
	ID        string    `json:"id"`
	File      string    `json:"file"` // the file it was read from
	Dir       string    `json:"dir"`  // where csa batch ran: its runs' project and default cwd
	CreatedAt time.Time `json:"created_at"`
	Tool      string    `json:"tool,omitempty"` // the tool of tasks that name neither tool nor tier
	Parallel  int       `json:"parallel"`       // 0: as the slots allow
	FailFast  bool      `json:"fail_fast"`
	// Worktree runs each task that does not say otherwise in a git
	// worktree of its own (csa batch --worktree).
	Worktree bool `json:"worktree,omitempty"`
	// Isolate is what each task that does not say confines (csa batch
	// --isolate, as csa run --isolate takes it); "" csa run's defaults.
	Isolate string `json:"isolate,omitempty"`
	// MaxCostUSD is each task's run's budget (csa batch --max-cost).
	MaxCostUSD float64 `json:"max_cost_usd,omitempty"`
	Tasks      []Task  `json:"tasks"`
	// RawBytes keeps the exact bytes of the prompts and paths above that
	// are not UTF-8 (internal/verbatim): a resumed batch runs them as given.
	RawBytes map[string]string `json:"raw_bytes,omitempty"`
}

// ErrBusy refuses to run a batch another csa batch is running.
var ErrBusy = errors.New("batch is being run")

// NotFoundError is a batch id that matches none.
type NotFoundError struct{ ID string }

func (e *NotFoundError) Error() string { return fmt.Sprintf("no batch matches %q", e.ID) }

// AmbiguousError is a prefix that matches several batches.
type AmbiguousError struct {
	ID         string
	Candidates []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("batch id %q is ambiguous: %s", e.ID, strings.Join(e.Candidates, ", "))
}

func (s *Store) dir(id string) string { return filepath.Join(s.Dir, id) }

// Create records b under a new id (set in b) before it runs.
func (s *Store) Create(b *Batch, now time.Time) error {
	b.ID, b.CreatedAt = session.NewID(now), now.UTC()
	if err := fsutil.MkdirPrivate(s.dir(b.ID)); err != nil {
		return err
	}
	data, err := verbatim.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(filepath.Join(s.dir(b.ID), "batch.json"), append(data, '\n'))
}

// Get reads batch id.
func (s *Store) Get(id string) (*Batch, error) {
	data, err := os.ReadFile(filepath.Join(s.dir(id), "batch.json"))
	if err != nil {
		return nil, fmt.Errorf("batch %s: %w", id, err)
	}
	var b Batch
	if _, err := verbatim.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("batch %s: batch.json: %w", id, err)
	}
	return &b, nil
}

// Resolve finds the batch an id or a unique prefix of one names.
func (s *Store) Resolve(arg string) (string, error) {
	prefix, err := session.NormalizePrefix(arg)
	if err != nil {
		return "", &NotFoundError{ID: arg}
	}
	entries, err := os.ReadDir(s.Dir)
	if err != nil && !os.IsNotExist(err) {
		return "", err
	}
	var hits []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
			hits = append(hits, e.Name())
		}
	}
	sort.Strings(hits)
	switch len(hits) {
	case 0:
		return "", &NotFoundError{ID: arg}
	case 1:
		return hits[0], nil
	}
	return "", &AmbiguousError{ID: arg, Candidates: hits}
}

// hold takes batch id's run lock, which the kernel lets go of when its
// holder dies (a dead holder's lock is not refused: lock.Owned).
func (s *Store) hold(id string) (*lock.Owned, error) {
	l, err := lock.TakeOwned(filepath.Join(s.dir(id), "run.lock"))
	if errors.Is(err, lock.ErrOwned) {
		return nil, fmt.Errorf("%w by another csa batch", ErrBusy)
	}
	return l, err
}

// running reports whether a live csa batch holds batch id's run lock.
func (s *Store) running(id string) bool {
	live, err := lock.OwnedByLive(filepath.Join(s.dir(id), "run.lock"))
	return err == nil && live
}
