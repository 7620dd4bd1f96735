package todo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/lock"
	"github.com/csa-dev/csa/internal/proc"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	return Open(t.TempDir(), "proj-1234", os.Getenv("PATH"))
}

func create(t *testing.T, s *Store, text string) string {
	t.Helper()
	p, err := Parse("in.md", text)
	if err != nil {
		t.Fatal(err)
	}
	id, err := s.Create(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func gitOut(t *testing.T, s *Store, args ...string) string {
	t.Helper()
	out, err := s.git.run(context.Background(), args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestStoreCommits(t *testing.T) {
	s := newStore(t)
	// The user's git configuration and the repository's hooks are not
	// consulted: a failing pre-commit hook and another identity change
	// nothing.
	t.Setenv("GIT_CONFIG_GLOBAL", writeFile(t, "[user]\n\tname = someone\n[commit]\n\tgpgsign = true\n"))
	id := create(t, s, diamond)
	if id != "diamond-quoted" {
		t.Errorf("id = %q, want diamond-quoted", id)
	}
	hook := filepath.Join(s.Dir, ".git", "hooks", "pre-commit")
	os.MkdirAll(filepath.Dir(hook), 0o700)
	if err := os.WriteFile(hook, []byte("#!/bin/sh\nexit 1\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if id2 := create(t, s, diamond); id2 != "diamond-quoted-2" {
		t.Errorf("second id = %q, want diamond-quoted-2", id2)
	}
	if _, err := s.Update(context.Background(), id, func(p *Plan) (string, error) {
		p.Task("B").Done = true
		return "task B done", nil
	}); err != nil {
		t.Fatal(err)
	}
	// No change, no commit.
	if _, err := s.Update(context.Background(), id, func(p *Plan) (string, error) { return "nothing", nil }); err != nil {
		t.Fatal(err)
	}
	log, err := s.Log(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for _, c := range log {
		subjects = append(subjects, c.Subject)
		if c.Author != IdentityName {
			t.Errorf("commit %s by %q, want %q", c.Hash, c.Author, IdentityName)
		}
	}
	if got, want := strings.Join(subjects, "|"), `diamond-quoted: task B done|create diamond-quoted: Diamond "quoted"`; got != want {
		t.Errorf("log = %q, want %q", got, want)
	}
	if p, _ := s.Get(id); !p.Task("B").Done {
		t.Error("task B is not done in the stored plan")
	}
	// An update that leaves an invalid plan is refused, nothing written.
	_, err = s.Update(context.Background(), id, func(p *Plan) (string, error) {
		p.Task("A").After = []string{"D"}
		return "loop", nil
	})
	if err == nil || !strings.Contains(err.Error(), "cycle: A -> D -> B -> A") {
		t.Errorf("a cyclic update: %v", err)
	}
	if p, _ := s.Get(id); len(p.Task("A").After) != 0 {
		t.Error("the refused update was written")
	}
}

func TestReplace(t *testing.T) {
	s := newStore(t)
	id := create(t, s, diamond)
	base, _ := s.Text(id)
	bad, _ := Parse("x.md", strings.Replace(base, "status: approved", "status: done", 1))
	var te *TransitionError
	if err := s.Replace(context.Background(), id, base, bad); !errors.As(err, &te) {
		t.Errorf("approved -> done by an edit: %v, want a TransitionError", err)
	}
	ok, _ := Parse("x.md", strings.Replace(base, "unrelated", "related after all", 1))
	if _, err := s.SetStatus(context.Background(), id, Implementing); err != nil {
		t.Fatal(err)
	}
	// The plan changed since base: not overwritten.
	if err := s.Replace(context.Background(), id, base, ok); !errors.Is(err, ErrConflict) {
		t.Errorf("replace over a newer plan: %v, want ErrConflict", err)
	}
	now, _ := s.Text(id)
	ok, _ = Parse("x.md", strings.Replace(now, "unrelated", "related after all", 1))
	if err := s.Replace(context.Background(), id, now, ok); err != nil {
		t.Fatal(err)
	}
	if p, _ := s.Get(id); p.Task("E").Title != "related after all" || p.Status != Implementing {
		t.Errorf("after the edit: %+v", p)
	}
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestHelperHolder is the writer TestKilledWriter kills: it takes the
// store's lock, leaves the plan half written (and git's index lock, as a
// git killed mid-way would), says so, and waits to be killed.
func TestHelperHolder(t *testing.T) {
	state := os.Getenv("TODO_TEST_HOLDER_STATE")
	if state == "" {
		t.Skip("run by TestKilledWriter")
	}
	s := Open(state, "proj-1234", os.Getenv("PATH"))
	s.locked(context.Background(), func() error {
		os.WriteFile(s.file("diamond-quoted"), []byte("# half writ"), 0o600)
		os.WriteFile(filepath.Join(s.Dir, ".git", "index.lock"), nil, 0o600)
		os.WriteFile(filepath.Join(state, "holding"), nil, 0o600)
		// Blocked until killed (select{} would be a deadlock to Go's runtime).
		time.Sleep(time.Hour)
		return nil
	})
}

// A writer SIGKILLed while it holds the lock leaves it to the next one,
// which finds the plan as last committed.
func TestKilledWriter(t *testing.T) {
	state := t.TempDir()
	s := Open(state, "proj-1234", os.Getenv("PATH"))
	id := create(t, s, diamond)
	holder, err := proc.Start(proc.Spec{
		Path: os.Args[0], Args: []string{"-test.run=^TestHelperHolder$"},
		Env: append(os.Environ(), "TODO_TEST_HOLDER_STATE="+state), Stdout: os.Stderr, Stderr: os.Stderr,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Signal(syscall.SIGKILL)
	waitFor(t, func() bool { _, err := os.Stat(filepath.Join(state, "holding")); return err == nil }, holder)
	s.LockWait = 50 * time.Millisecond
	mark := func(p *Plan) (string, error) { p.Task("C").Done = true; return "task C done", nil }
	if _, err := s.Update(context.Background(), id, mark); !errors.Is(err, lock.ErrTimeout) {
		t.Fatalf("while the holder lives: %v, want lock.ErrTimeout", err)
	}
	if err := holder.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	holder.Wait()
	s.LockWait = 30 * time.Second
	p, err := s.Update(context.Background(), id, mark)
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	if !p.Task("C").Done || p.Task("A").Title != "lay the ground" {
		t.Errorf("plan after recovery: %+v", p)
	}
	if st := gitOut(t, s, "status", "--porcelain"); st != "" {
		t.Errorf("repository left dirty: %q", st)
	}
	if log := gitOut(t, s, "log", "--format=%s"); !strings.HasPrefix(log, id+": task C done\n") {
		t.Errorf("log: %q", log)
	}
}

// waitFor waits (bounded) until cond holds; the helper's early end fails
// the test at once.
func waitFor(t *testing.T, cond func() bool, p *proc.Process) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		select {
		case <-p.Done():
			t.Fatal("the helper ended early")
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("condition never held")
		}
	}
}

// A reader sees plans as last committed: what a writer wrote and had not
// committed when it died (undone by the next writer) is never read, nor is
// a plan file that was never committed.
func TestReadersSeeCommits(t *testing.T) {
	s := newStore(t)
	id := create(t, s, diamond)
	before, err := s.Text(id)
	if err != nil {
		t.Fatal(err)
	}
	// A writer killed between writing the file and committing it.
	if err := os.WriteFile(s.file(id), []byte(before+"- [ ] Z: half written\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.file("ghost"), []byte("# Ghost\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if now, err := s.Text(id); err != nil || now != before {
		t.Errorf("Text = %q, %v; want the committed plan", now, err)
	}
	if p, err := s.Get(id); err != nil || p.Task("Z") != nil {
		t.Errorf("Get = %+v, %v; want the committed plan", p, err)
	}
	if ids, err := s.IDs(); err != nil || len(ids) != 1 || ids[0] != id {
		t.Errorf("IDs = %v, %v; want [%s]", ids, err, id)
	}
	if _, err := s.Get("ghost"); err == nil {
		t.Error("an uncommitted plan file was read")
	}
	if _, err := s.Get("../x"); err == nil {
		t.Error("a path was taken for a plan id")
	}
}
