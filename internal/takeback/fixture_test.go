package takeback

import (
	"context"
	"io/fs"
	"maps"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/testkit/gitrepo"
)

// weird is a path no encoding holds as text: a byte that is not UTF-8, a
// space and an accented letter.
const weird = "dir é/\xff name.txt"

var gitEnv = gitrepo.Env("user", "user@example.com")

func newGit(t *testing.T) *gittree.Git {
	for _, kv := range gitEnv {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return &gittree.Git{Env: gittree.Clean(os.Environ())}
}

func git(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(gitrepo.Run(t, dir, append(append([]string(nil), gitEnv...), env...), args...))
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

// lines is shared.txt: ten numbered lines, with some replaced.
func lines(replace map[int]string) string {
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		l, ok := replace[i]
		if !ok {
			l = "line " + string(rune('0'+i%10))
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

// tree is every file of a work tree but .git, by path, with its bytes.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			r, _ := filepath.Rel(root, p)
			out[r] = read(t, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, root string, want map[string]string) {
	t.Helper()
	if got := tree(t, root); !maps.Equal(got, want) {
		t.Fatalf("the work tree changed:\n%q\nwas\n%q", got, want)
	}
}

// fixture is a caller's repository and its project's session store.
type fixture struct {
	t      *testing.T
	caller string
	store  *session.Store
	n      int
}

func newFixture(t *testing.T) *fixture {
	dir := t.TempDir()
	caller := filepath.Join(dir, "caller")
	git(t, dir, nil, "init", "-q", "-b", "main", caller)
	write(t, filepath.Join(caller, "shared.txt"), lines(nil))
	write(t, filepath.Join(caller, "caller.txt"), "committed\n")
	git(t, caller, nil, "add", ".")
	git(t, caller, nil, "commit", "-q", "-m", "start")
	store, err := session.Open(filepath.Join(dir, "state", "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, caller: caller, store: store}
}

// run makes what csa run --worktree records, the way the contract says:
// a branch from the caller's HEAD in a worktree of its own, a snapshot
// commit of the caller's uncommitted caller.txt (if any), the agent's
// edits committed by csa, the worktree removed; and the session's
// record. It returns the session id.
func (f *fixture) run(edits map[string]string) string {
	t := f.t
	f.n++
	id := session.NewID(time.Date(2026, 1, 1, 0, 0, 0, f.n*int(time.Millisecond), time.UTC))
	branch := "csa/" + strings.ToLower(id[len(id)-8:])
	base := git(t, f.caller, nil, "rev-parse", "HEAD")
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, f.caller, nil, "worktree", "add", "-q", "-b", branch, wt, base)
	snapshot := base
	if git(t, f.caller, nil, "status", "--porcelain", "--", "caller.txt") != "" {
		write(t, filepath.Join(wt, "caller.txt"), read(t, filepath.Join(f.caller, "caller.txt")))
		git(t, wt, nil, "commit", "-q", "-a", "-m", "csa: the caller's uncommitted changes")
		snapshot = git(t, wt, nil, "rev-parse", "HEAD")
	}
	for p, text := range edits {
		write(t, filepath.Join(wt, p), text)
	}
	git(t, wt, nil, "add", "-A")
	csa := []string{"GIT_AUTHOR_NAME=csa", "GIT_AUTHOR_EMAIL=csa@localhost"}
	git(t, wt, csa, "commit", "-q", "-m", "run "+id+"\n\nCSA-Session: "+id+"\nCSA-Tool: fakeagent")
	head := git(t, wt, nil, "rev-parse", "HEAD")
	git(t, f.caller, nil, "worktree", "remove", wt)

	if err := f.store.MakeDir(id); err != nil {
		t.Fatal(err)
	}
	st := &session.State{ID: id, Tool: "fakeagent", Status: session.Completed, ProjectRoot: f.caller, Cwd: f.caller,
		CreatedAt: time.Now(), Workspace: &session.Workspace{Repo: f.caller, Branch: branch, Base: base,
			Snapshot: snapshot, Head: head, Recorded: true}}
	if err := f.store.Save(st); err != nil {
		t.Fatal(err)
	}
	return id
}

// change is the session's change, read back from the store.
func (f *fixture) change(id string) *Change {
	f.t.Helper()
	st, err := f.store.Load(id)
	if err != nil {
		f.t.Fatal(err)
	}
	c, err := Of(st)
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

var ctx = context.Background()

func splitLines(b []byte) []string {
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// exec runs git and returns its error only (a yes/no question).
func exec(dir string, args ...string) error {
	cmd := osexec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv...)
	return cmd.Run()
}
