package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/testkit/gitrepo"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return gitrepo.Run(t, dir, gitrepo.Env("t", "t@t"), args...)
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func newSession(t *testing.T, store *session.Store) *session.State {
	t.Helper()
	st := &session.State{ID: session.NewID(time.Now()), Tool: "codex", Status: session.Pending}
	h, err := store.Create(st.ID)
	if err != nil {
		t.Fatal(err)
	}
	h.Release()
	return st
}

// The whole life of a workspace with real git: the caller's uncommitted
// change (staged, unstaged, untracked) is in the worktree, the caller's
// tree and index are left alone, the agent's change is committed on the
// branch with csa's message, and the folder goes while the branch stays.
func TestCreateRecordRemove(t *testing.T) {
	ctx := context.Background()
	g := &gittree.Git{Env: gittree.Clean(os.Environ())}
	repo := filepath.Join(t.TempDir(), "repo")
	git(t, t.TempDir(), "init", "-q", "-b", "main", repo)
	write(t, filepath.Join(repo, "sub", "a.txt"), "one\n")
	write(t, filepath.Join(repo, "b.txt"), "b\n")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "base")
	write(t, filepath.Join(repo, "sub", "a.txt"), "one\ncaller\n")
	git(t, repo, "add", "sub/a.txt")
	write(t, filepath.Join(repo, "b.txt"), "b unstaged\n")
	write(t, filepath.Join(repo, "new.txt"), "untracked\n")
	status, index := git(t, repo, "status", "--porcelain"), read(t, filepath.Join(repo, ".git", "index"))

	store, err := session.Open(filepath.Join(t.TempDir(), "p", "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	st := newSession(t, store)
	prompt := "fix\x00 the \xff bug\nsecond line"
	cwd, err := Create(ctx, g, store, st, prompt, filepath.Join(repo, "sub"), Options{}, new(*gittree.Snapshot))
	if err != nil {
		t.Fatal(err)
	}
	ws := st.Workspace
	if !Inside(store, cwd) || filepath.Base(cwd) != "sub" || ws.Subdir != "sub" || ws.Branch != "csa/"+st.ID[:10] {
		t.Fatalf("cwd %s, workspace %+v", cwd, ws)
	}
	if got := read(t, filepath.Join(cwd, "a.txt")); got != "one\ncaller\n" {
		t.Errorf("the worktree's a.txt: %q", got)
	}
	if read(t, filepath.Join(ws.Dir, "new.txt")) != "untracked\n" || read(t, filepath.Join(ws.Dir, "b.txt")) != "b unstaged\n" {
		t.Error("the caller's unstaged or untracked change is not in the worktree")
	}
	if ws.Snapshot == ws.Base || strings.TrimSpace(git(t, repo, "rev-parse", "HEAD")) != ws.Base {
		t.Errorf("base %s snapshot %s", ws.Base, ws.Snapshot)
	}

	write(t, filepath.Join(cwd, "a.txt"), "one\ncaller\nagent\n")
	write(t, filepath.Join(ws.Dir, "agent.txt"), "x\ny\n")
	if err := Record(ctx, g, store, st); err != nil {
		t.Fatal(err)
	}
	if !ws.Recorded || ws.Dir != "" || ws.Files != 2 || ws.Insertions != 3 || ws.Deletions != 0 {
		t.Fatalf("recorded workspace %+v", ws)
	}
	if _, err := os.Stat(filepath.Join(Root(store), st.ID)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the worktree's folder is still there: %v", err)
	}
	if got := strings.TrimSpace(git(t, repo, "rev-parse", ws.Branch)); got != ws.Head {
		t.Errorf("branch at %s, head %s", got, ws.Head)
	}
	if got := git(t, repo, "show", ws.Head+":sub/a.txt"); got != "one\ncaller\nagent\n" {
		t.Errorf("the branch's a.txt: %q", got)
	}
	msg := git(t, repo, "log", "-1", "--format=%an%n%B", ws.Head)
	want := "csa\nfix  the \uFFFD bug\n\nThe change csa session " + st.ID + " made.\n\nCSA-Session: " + st.ID + "\nCSA-Tool: codex\n"
	if strings.TrimSpace(msg) != strings.TrimSpace(want) {
		t.Errorf("message:\n%q\nwant\n%q", msg, want)
	}
	if tr := git(t, repo, "log", "-1", "--format=%(trailers:key=CSA-Session,valueonly)", ws.Head); strings.TrimSpace(tr) != st.ID {
		t.Errorf("CSA-Session trailer: %q", tr)
	}
	if git(t, repo, "status", "--porcelain") != status || read(t, filepath.Join(repo, ".git", "index")) != index {
		t.Error("the caller's tree or index changed")
	}
	// Recording again changes nothing.
	head := ws.Head
	if err := Record(ctx, g, store, st); err != nil || ws.Head != head {
		t.Errorf("second record: %v, head %s", err, ws.Head)
	}
}

func TestCheckOutsideGit(t *testing.T) {
	g := &gittree.Git{Env: gittree.Clean(os.Environ())}
	if err := Check(context.Background(), g, t.TempDir()); !errors.Is(err, gittree.ErrNotRepo) {
		t.Fatalf("outside git: %v", err)
	}
}

func TestSubject(t *testing.T) {
	for in, want := range map[string]string{
		"":                       "csa run",
		"\n\n  \nsecond":         "second",
		"a\tb\rc\x00d":           "a b c d",
		strings.Repeat("é", 100): strings.Repeat("é", 71) + "…",
	} {
		if got := Subject(in); got != want {
			t.Errorf("Subject(%q) = %q, want %q", in, got, want)
		}
	}
}
