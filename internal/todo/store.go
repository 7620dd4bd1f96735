package todo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/lock"
)

// Store is a project's plans: one markdown file per plan (ID.md) in a git
// repository of their own, every change a commit. Writers are serialised
// by an flock beside the repository, which the kernel releases when its
// holder dies, so a killed writer never leaves the plans locked.
type Store struct {
	Dir      string        // the repository
	LockWait time.Duration // how long a writer waits for another
	lockPath string
	git      *git
}

// Open is the plan store of a project (key: its state directory's name)
// under csa's state directory; path is the PATH git is found on. Nothing
// is created until the first write.
func Open(stateDir, key, path string) *Store {
	dir := filepath.Join(stateDir, "todo", key)
	return &Store{Dir: dir, LockWait: 30 * time.Second, lockPath: dir + ".lock", git: &git{dir: dir, path: path}}
}

// NotFoundError is a plan id that matches no plan.
type NotFoundError struct{ ID string }

func (e *NotFoundError) Error() string { return fmt.Sprintf("no plan %q (see csa todo list)", e.ID) }

// AmbiguousError is a prefix of several plans' ids.
type AmbiguousError struct {
	ID      string
	Matches []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("plan %q is ambiguous: %s", e.ID, strings.Join(e.Matches, ", "))
}

// IDs lists the plans committed, sorted.
func (s *Store) IDs() ([]string, error) {
	if !s.exists() {
		return nil, nil
	}
	out, err := s.git.run(context.Background(), "ls-tree", "--name-only", "HEAD")
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, n := range strings.Fields(out) {
		if id, ok := strings.CutSuffix(n, ".md"); ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// exists reports whether the repository was made (by the first write).
func (s *Store) exists() bool {
	_, err := os.Stat(filepath.Join(s.Dir, ".git"))
	return err == nil
}

// Resolve is the plan id arg names: itself, else the one plan it begins.
func (s *Store) Resolve(arg string) (string, error) {
	ids, err := s.IDs()
	if err != nil {
		return "", err
	}
	var matches []string
	for _, id := range ids {
		if id == arg {
			return id, nil
		}
		if strings.HasPrefix(id, arg) {
			matches = append(matches, id)
		}
	}
	switch {
	case arg == "" || len(matches) == 0:
		return "", &NotFoundError{ID: arg}
	case len(matches) > 1:
		return "", &AmbiguousError{ID: arg, Matches: matches}
	}
	return matches[0], nil
}

// Get reads plan id as last committed, so a reader needs no lock: a
// writer's file not yet committed (and undone if it dies first) is never
// seen.
func (s *Store) Get(id string) (*Plan, error) {
	text, err := s.Text(id)
	if err != nil {
		return nil, err
	}
	return Parse(id+".md", text)
}

// Text is plan id's markdown as last committed.
func (s *Store) Text(id string) (string, error) {
	if err := validID(id); err != nil || !s.exists() {
		return "", &NotFoundError{ID: id}
	}
	ids, err := s.IDs()
	if err != nil {
		return "", err
	}
	if !slices.Contains(ids, id) {
		return "", &NotFoundError{ID: id}
	}
	return s.git.run(context.Background(), "show", "HEAD:"+id+".md")
}

// validID keeps an id a plain file name of the repository.
func validID(id string) error {
	if id == "" || strings.ContainsAny(id, "/\\:") || strings.HasPrefix(id, ".") {
		return fmt.Errorf("invalid plan id %q", id)
	}
	return nil
}

func (s *Store) file(id string) string { return filepath.Join(s.Dir, id+".md") }

// Create stores a new plan and returns its id, made from its title.
func (s *Store) Create(ctx context.Context, p *Plan) (string, error) {
	var id string
	err := s.locked(ctx, func() error {
		id = s.freeID(slug(p.Title))
		p.File = id + ".md"
		return s.commit(ctx, id, p, fmt.Sprintf("create %s: %s", id, p.Title))
	})
	return id, err
}

// Update applies change to the latest version of plan id under the lock
// and commits the result with the message change returns. A change that
// leaves the markdown as it was makes no commit.
func (s *Store) Update(ctx context.Context, id string, change func(p *Plan) (msg string, err error)) (*Plan, error) {
	var p *Plan
	err := s.locked(ctx, func() error {
		var err error
		if p, err = s.Get(id); err != nil {
			return err
		}
		msg, err := change(p)
		if err != nil {
			return err
		}
		if err := Check(p); err != nil {
			return err
		}
		return s.commit(ctx, id, p, id+": "+msg)
	})
	return p, err
}

// Commit is one change in a plan's history.
type Commit struct {
	Hash    string    `json:"hash"`
	Time    time.Time `json:"time"`
	Author  string    `json:"author"`
	Subject string    `json:"subject"`
}

// Log is the history of plan id, newest first.
func (s *Store) Log(ctx context.Context, id string) ([]Commit, error) {
	out, err := s.git.run(ctx, "log", "--format=%h%x1f%aI%x1f%an%x1f%s", "--", id+".md")
	if err != nil {
		return nil, err
	}
	var log []Commit
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		f := strings.SplitN(l, "\x1f", 4)
		if len(f) != 4 {
			continue
		}
		t, _ := time.Parse(time.RFC3339, f[1])
		log = append(log, Commit{Hash: f[0], Time: t, Author: f[2], Subject: f[3]})
	}
	return log, nil
}

// locked runs fn holding the store's lock, in a repository made sure of.
func (s *Store) locked(ctx context.Context, fn func() error) error {
	if err := mkdirParent(s.Dir); err != nil {
		return err
	}
	l := lock.New(s.lockPath)
	if err := l.LockTimeout(ctx, s.LockWait); err != nil {
		if errors.Is(err, lock.ErrTimeout) {
			return fmt.Errorf("the plans are locked by another csa for more than %s: %w", s.LockWait, err)
		}
		return err
	}
	defer l.Unlock()
	if err := s.ready(ctx); err != nil {
		return err
	}
	return fn()
}

// ready makes the repository when there is none, and undoes what a writer
// that died holding the lock left half done: git's own lock files (no git
// of ours can be running now) and changes it never committed.
func (s *Store) ready(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(s.Dir, ".git")); errors.Is(err, os.ErrNotExist) {
		if err := fsutil.MkdirPrivate(s.Dir); err != nil {
			return err
		}
		if _, err := s.git.run(ctx, "init", "-q"); err != nil {
			return err
		}
	}
	for _, f := range []string{"index.lock", "HEAD.lock", "refs/heads/main.lock"} {
		os.Remove(filepath.Join(s.Dir, ".git", f))
	}
	if _, err := s.git.run(ctx, "rev-parse", "-q", "--verify", "HEAD"); err != nil {
		_, err := s.git.run(ctx, "commit", "-q", "--allow-empty", "-m", "csa todo: the plans of this project")
		return err
	}
	dirty, err := s.git.run(ctx, "status", "--porcelain")
	if err != nil || dirty == "" {
		return err
	}
	if _, err := s.git.run(ctx, "reset", "-q", "--hard", "HEAD"); err != nil {
		return err
	}
	_, err = s.git.run(ctx, "clean", "-q", "-f", "-d")
	return err
}

// commit writes plan id and commits it, if it changed.
func (s *Store) commit(ctx context.Context, id string, p *Plan, msg string) error {
	name := id + ".md"
	if err := fsutil.WriteFileAtomic(s.file(id), []byte(Format(p))); err != nil {
		return err
	}
	changed, err := s.git.run(ctx, "status", "--porcelain", "--", name)
	if err != nil || changed == "" {
		return err
	}
	if _, err := s.git.run(ctx, "add", "--", name); err != nil {
		return err
	}
	_, err = s.git.run(ctx, "commit", "-q", "-m", msg, "--", name)
	return err
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// slug is a plan id made from a title: lower case words joined by '-'.
func slug(title string) string {
	s := strings.Trim(nonWord.ReplaceAllString(strings.ToLower(title), "-"), "-")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
	}
	if s == "" {
		s = "plan"
	}
	return s
}

// freeID is base, or base-2, base-3... the first no plan has.
func (s *Store) freeID(base string) string {
	id := base
	for n := 2; ; n++ {
		if _, err := os.Stat(s.file(id)); errors.Is(err, os.ErrNotExist) {
			return id
		}
		id = fmt.Sprintf("%s-%d", base, n)
	}
}

func mkdirParent(dir string) error { return os.MkdirAll(filepath.Dir(dir), 0o700) }

// ErrConflict refuses a replacement of a plan that changed since the
// replacement was begun from it.
var ErrConflict = errors.New("the plan changed meanwhile")

// Replace replaces plan id with p, an edit of base (its markdown as it
// was when the edit began): when the plan changed since, nothing is
// replaced. A change of status must be one Status.CanBecome allows.
func (s *Store) Replace(ctx context.Context, id, base string, p *Plan) error {
	return s.locked(ctx, func() error {
		cur, err := s.Text(id)
		if err != nil {
			return err
		}
		if cur != base {
			return fmt.Errorf("plan %s: %w (see csa todo log %s)", id, ErrConflict, id)
		}
		old, err := Parse(id+".md", cur)
		if err != nil {
			return err
		}
		if p.Status != old.Status && !old.Status.CanBecome(p.Status) {
			return &TransitionError{From: old.Status, To: p.Status}
		}
		p.File = id + ".md"
		return s.commit(ctx, id, p, "edit "+id)
	})
}

// SetStatus sets plan id's status, if its status may become st.
func (s *Store) SetStatus(ctx context.Context, id string, st Status) (*Plan, error) {
	return s.Update(ctx, id, func(p *Plan) (string, error) {
		if p.Status == st {
			return "", nil
		}
		if !p.Status.CanBecome(st) {
			return "", &TransitionError{From: p.Status, To: st}
		}
		msg := fmt.Sprintf("status %s -> %s", p.Status, st)
		p.Status = st
		return msg, nil
	})
}

// TransitionError is a status change that is not allowed.
type TransitionError struct{ From, To Status }

func (e *TransitionError) Error() string {
	var next []string
	for _, s := range e.From.Next() {
		next = append(next, string(s))
	}
	return fmt.Sprintf("a plan that is %s cannot become %s (it can become %s)", e.From, e.To, strings.Join(next, " or "))
}
