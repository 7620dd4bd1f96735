// Package session stores csa sessions: one flat directory per ULID under a
// project's state directory, a TOML state file written atomically, and the
// genealogy (parent, depth) as fields, not as directory nesting.
package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/lock"
)

// File names inside a session directory.
const (
	StateFile      = "state.toml"
	OutputFile     = "output.log"
	StderrFile     = "stderr.log"
	EventsFile     = "events.jsonl"
	PromptFile     = "prompt.txt"
	SupervisorLock = "supervisor.lock" // held by the supervising csa for the whole run
	KillRequest    = "kill.request"    // written by `csa kill` before it signals
)

// lockTimeout bounds every wait for a state lock: a stuck peer must not
// hang a command.
const lockTimeout = 5 * time.Second

// Store is one project's sessions.
type Store struct {
	dir string // .../projects/<slug>/sessions
}

// Open returns the store rooted at sessionsDir, creating it if needed.
func Open(sessionsDir string) (*Store, error) {
	if err := fsutil.MkdirPrivate(sessionsDir); err != nil {
		return nil, err
	}
	return &Store{dir: sessionsDir}, nil
}

// Root is the directory that holds the session directories.
func (s *Store) Root() string { return s.dir }

// Dir is the directory of session id. id must be a full, validated ULID.
func (s *Store) Dir(id string) string { return filepath.Join(s.dir, id) }

// Path is a file inside the session directory.
func (s *Store) Path(id, name string) string { return filepath.Join(s.dir, id, name) }

// MakeDir creates the directory of a new session. The caller takes the
// supervisor lock before saving the first state, so that no reader ever
// sees an unsupervised pending session.
func (s *Store) MakeDir(id string) error {
	if up, err := NormalizePrefix(id); err != nil || len(id) != IDLen || up != id {
		return fmt.Errorf("create session: bad id %q", id)
	}
	if err := os.Mkdir(s.Dir(id), fsutil.DirMode); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return &ExistsError{ID: id}
		}
		return fmt.Errorf("create session: %w", err)
	}
	return nil
}

// Create makes a new session's directory and takes its supervisor lock,
// leaving nothing behind when it cannot. A stillborn directory of id (see
// Stillborn) is taken over: the session is made there afresh. Any other
// existing session of id is an ExistsError.
func (s *Store) Create(id string) (*lock.Holder, error) {
	err := s.MakeDir(id)
	var exists *ExistsError
	if errors.As(err, &exists) {
		return s.takeOver(id)
	}
	if err != nil {
		return nil, err
	}
	h, err := lock.Acquire(s.Path(id, SupervisorLock))
	if err != nil {
		if held, _ := lock.Held(s.Path(id, SupervisorLock)); !held {
			s.Remove(id) // else whoever holds it took the directory over
		}
		return nil, err
	}
	return h, nil
}

// Stillborn reports whether id's directory is what a csa killed while it
// created the session leaves: no state file was ever written and no live
// process holds the supervisor lock. No agent ran for it: a detached run's
// state is saved (and synced) before its supervisor starts, a foreground
// run's state when its program starts (a program that outlived its csa
// by a moment is ended by the run's keeper).
func (s *Store) Stillborn(id string) bool {
	if !s.noState(id) {
		return false
	}
	if _, err := os.Stat(s.Dir(id)); err != nil {
		return false
	}
	held, err := lock.Held(s.Path(id, SupervisorLock))
	return err == nil && !held
}

// Taken is an ExistsError when id names a session that exists, or is
// being created, and nil when Create(id) would make it: no directory, or a
// stillborn one.
func (s *Store) Taken(id string) error {
	if _, err := os.Stat(s.Dir(id)); errors.Is(err, fs.ErrNotExist) || s.Stillborn(id) {
		return nil
	}
	return &ExistsError{ID: id}
}

// takeOver makes the session in a stillborn directory of id: its
// supervisor lock is taken first (so two takers cannot both win), then the
// directory is checked still to hold no state, and emptied of what the
// killed csa wrote.
func (s *Store) takeOver(id string) (*lock.Holder, error) {
	h, err := lock.Acquire(s.Path(id, SupervisorLock))
	if err != nil {
		return nil, &ExistsError{ID: id}
	}
	if !s.noState(id) {
		h.Release()
		return nil, &ExistsError{ID: id}
	}
	names, err := os.ReadDir(s.Dir(id))
	if err != nil {
		h.Release()
		return nil, fmt.Errorf("create session: %w", err)
	}
	for _, n := range names {
		if n.Name() != SupervisorLock {
			if err := os.RemoveAll(filepath.Join(s.Dir(id), n.Name())); err != nil {
				h.Release()
				return nil, fmt.Errorf("create session: clear stillborn %s: %w", id, err)
			}
		}
	}
	return h, nil
}

func (s *Store) noState(id string) bool {
	_, err := os.Stat(s.Path(id, StateFile))
	return errors.Is(err, fs.ErrNotExist)
}

// ExistsError reports a new session's id that names one that exists.
type ExistsError struct{ ID string }

func (e *ExistsError) Error() string { return fmt.Sprintf("session %s already exists", e.ID) }

// Save writes st atomically. It is fsynced too, except for a running
// state: if the machine dies mid-run the pending state that was synced
// before is found with no supervisor, and reconciled as crashed, which is
// what happened.
func (s *Store) Save(st *State) error {
	data, err := Encode(st)
	if err != nil {
		return err
	}
	if st.Status == Running {
		return fsutil.WriteFileReplace(s.Path(st.ID, StateFile), data)
	}
	err = fsutil.WriteFileAtomic(s.Path(st.ID, StateFile), data)
	if err != nil && st.Status.Ended() {
		err = s.saveFromReserve(st.ID, data, err) // a full disk
	}
	return err
}

// Load reads the state of a full id.
func (s *Store) Load(id string) (*State, error) {
	data, err := os.ReadFile(s.Path(id, StateFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if _, serr := os.Stat(s.Dir(id)); serr == nil {
				return nil, &CorruptError{ID: id, Err: ErrStateMissing}
			}
			return nil, &NotFoundError{Prefix: id}
		}
		return nil, fmt.Errorf("read state of %s: %w", id, err)
	}
	return Decode(data, id)
}

// ErrStateMissing is the CorruptError of a directory without state file.
var ErrStateMissing = errors.New("state file missing")

// CorruptError reports a session directory whose state cannot be read.
type CorruptError struct {
	ID  string
	Err error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("session %s: corrupt state: %v", e.ID, e.Err)
}
func (e *CorruptError) Unwrap() error { return e.Err }

// Update applies fn to the current state under the session's state lock and
// saves the result. fn may return ErrNoChange to skip the write.
func (s *Store) Update(ctx context.Context, id string, fn func(*State) error) (*State, error) {
	if _, err := os.Stat(s.Dir(id)); err != nil {
		return nil, &NotFoundError{Prefix: id}
	}
	// The session directory itself is the state lock: one file fewer to
	// create per run.
	l := lock.NewDir(s.Dir(id))
	if err := l.LockTimeout(ctx, lockTimeout); err != nil {
		return nil, fmt.Errorf("update session %s: %w", id, err)
	}
	defer l.Unlock()
	st, err := s.Load(id)
	if err != nil {
		return nil, err
	}
	if err := fn(st); err != nil {
		if errors.Is(err, ErrNoChange) {
			return st, nil
		}
		return nil, err
	}
	return st, s.Save(st)
}

// ErrNoChange tells Update that fn decided not to change anything.
var ErrNoChange = errors.New("no change")

// IDs lists the session ids present, in creation order. Entries that are not
// ULIDs are ignored.
func (s *Store) IDs() ([]string, error) {
	f, err := os.Open(s.dir)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	ids := names[:0]
	for _, n := range names {
		if isID(n) {
			ids = append(ids, n)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// isID reports whether a directory name is a full upper-case ULID: a
// table lookup per byte, since a store may hold tens of thousands.
func isID(n string) bool {
	if len(n) != IDLen || n[0] > '7' {
		return false
	}
	for i := 0; i < len(n); i++ {
		if !idByte[n[i]] {
			return false
		}
	}
	return true
}

var idByte = func() (t [256]bool) {
	for i := 0; i < len(crockford); i++ {
		t[crockford[i]] = true
	}
	return t
}()

// Resolve turns a case-insensitive unique prefix into a full id.
func (s *Store) Resolve(prefix string) (string, error) {
	p, err := NormalizePrefix(prefix)
	if err != nil {
		return "", err
	}
	if len(p) == IDLen {
		if _, err := os.Stat(s.Dir(p)); err != nil {
			return "", &NotFoundError{Prefix: prefix}
		}
		return p, nil
	}
	f, err := os.Open(s.dir)
	if err != nil {
		return "", fmt.Errorf("list sessions: %w", err)
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return "", fmt.Errorf("list sessions: %w", err)
	}
	var match []string
	for _, n := range names {
		if strings.HasPrefix(n, p) && isID(n) {
			match = append(match, n)
		}
	}
	sort.Strings(match)
	switch len(match) {
	case 0:
		return "", &NotFoundError{Prefix: prefix}
	case 1:
		return match[0], nil
	}
	return "", &AmbiguousError{Prefix: prefix, Candidates: match}
}

// Entry is one listed session: its state, or why it could not be read.
type Entry struct {
	ID    string
	State *State
	Err   error
}

// List loads every session. Decoding is spread over the CPUs because a
// project may hold tens of thousands of sessions.
func (s *Store) List() ([]Entry, error) {
	ids, err := s.IDs()
	if err != nil {
		return nil, err
	}
	out := make([]Entry, len(ids))
	workers := runtime.GOMAXPROCS(0)
	if len(ids) < 64 {
		workers = 1
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(ids); i += workers {
				st, err := s.Load(ids[i])
				out[i] = Entry{ID: ids[i], State: st, Err: err}
			}
		}(w)
	}
	wg.Wait()
	return out, nil
}

// Remove deletes a session directory and everything in it.
func (s *Store) Remove(id string) error {
	if err := os.RemoveAll(s.Dir(id)); err != nil {
		return fmt.Errorf("remove session %s: %w", id, err)
	}
	return nil
}

// SupervisorAlive reports whether a csa process still supervises id. It is
// decided by the supervisor's flock, which the kernel drops when the
// process dies, so a recycled PID cannot fool it.
func (s *Store) SupervisorAlive(id string) bool {
	held, err := lock.Held(s.Path(id, SupervisorLock))
	return err == nil && held
}

// Ancestors returns the chain of parent ids of id, nearest first. It stops at
// a missing parent or a cycle.
func (s *Store) Ancestors(id string) []string {
	var chain []string
	seen := map[string]bool{id: true}
	for cur := id; ; {
		st, err := s.Load(cur)
		if err != nil || st.ParentID == "" || seen[st.ParentID] {
			return chain
		}
		chain = append(chain, st.ParentID)
		seen[st.ParentID] = true
		cur = st.ParentID
	}
}
