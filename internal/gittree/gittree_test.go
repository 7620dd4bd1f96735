package gittree

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

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

// callerRepo: a committed file, a committed file changed and staged, an
// untracked file, an ignored file, and a binary untracked file.
func callerRepo(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "caller")
	git(t, t.TempDir(), "init", "-q", "-b", "main", dir)
	write(t, filepath.Join(dir, "committed.txt"), "committed\n")
	write(t, filepath.Join(dir, "sub", "changed.txt"), "old\n")
	write(t, filepath.Join(dir, ".gitignore"), "*.log\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "one")
	write(t, filepath.Join(dir, "sub", "changed.txt"), "new\n")
	git(t, dir, "add", "sub/changed.txt")
	write(t, filepath.Join(dir, "untracked.txt"), "untracked\n")
	write(t, filepath.Join(dir, "noise.log"), "ignored\n")
	write(t, filepath.Join(dir, "blob.bin"), "\x00\x01\x02binary\x00")
	return dir
}

// The whole trip without a cluster: snapshot the caller, check it out in
// a scratch tree from a bundle, change it as an agent would, and apply
// the result back. The caller's index and status are the same before
// and after the snapshot.
func TestSnapshotCheckoutResultApply(t *testing.T) {
	ctx := context.Background()
	g := &Git{Env: Clean(os.Environ())}
	caller := callerRepo(t)
	status := git(t, caller, "status", "--porcelain")
	index := read(t, filepath.Join(caller, ".git", "index"))

	snap, err := g.Take(ctx, filepath.Join(caller, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	if snap.Subdir != "sub" || snap.Commit != git(t, caller, "rev-parse", "HEAD")[:40] || len(snap.Diff) == 0 {
		t.Fatalf("snapshot: subdir %q commit %s diff %d bytes", snap.Subdir, snap.Commit, len(snap.Diff))
	}
	if got := git(t, caller, "status", "--porcelain"); got != status {
		t.Errorf("git status changed by the snapshot:\n%s\nwas\n%s", got, status)
	}
	if read(t, filepath.Join(caller, ".git", "index")) != index {
		t.Error("the caller's index changed")
	}
	bundle := filepath.Join(t.TempDir(), "b.bundle")
	if err := g.Bundle(ctx, snap.Root, bundle); err != nil {
		t.Fatal(err)
	}

	w := &Git{Env: Clean(os.Environ()), NoHooks: true}
	scratch := filepath.Join(t.TempDir(), "trees", "ID")
	s, err := w.Checkout(ctx, scratch, bundle, snap.Commit, snap.Diff)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"committed.txt": "committed\n", "sub/changed.txt": "new\n",
		"untracked.txt": "untracked\n", "blob.bin": "\x00\x01\x02binary\x00"} {
		if got := read(t, filepath.Join(scratch, name)); got != want {
			t.Errorf("scratch %s: %q, want %q", name, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(scratch, "noise.log")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an ignored file travelled: %v", err)
	}

	// The agent: a new file, a changed one, a deleted one, and git add in
	// its own index (which must not hide the change).
	write(t, filepath.Join(scratch, "agent.txt"), "by the agent\n")
	write(t, filepath.Join(scratch, "committed.txt"), "changed by the agent\n")
	os.Remove(filepath.Join(scratch, "untracked.txt"))
	git(t, scratch, "add", "-A")
	diff, paths, err := w.Result(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(paths)
	if want := []string{"agent.txt", "committed.txt", "untracked.txt"}; !slices.Equal(paths, want) {
		t.Fatalf("result paths %q, want %q\n%s", paths, want, diff)
	}

	got, err := g.Apply(ctx, caller, diff, true)
	if err != nil {
		t.Fatalf("apply --check: %v", err)
	}
	slices.Sort(got)
	if !slices.Equal(got, paths) {
		t.Errorf("apply --check paths %q", got)
	}
	if read(t, filepath.Join(caller, "committed.txt")) != "committed\n" {
		t.Fatal("--check changed the tree")
	}
	if _, err := g.Apply(ctx, filepath.Join(caller, "sub"), diff, false); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(caller, "agent.txt")) != "by the agent\n" || read(t, filepath.Join(caller, "committed.txt")) != "changed by the agent\n" {
		t.Error("the diff did not apply")
	}
	if _, err := os.Stat(filepath.Join(caller, "untracked.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Error("untracked.txt is still there")
	}
	if read(t, filepath.Join(caller, ".git", "index")) != index {
		t.Error("apply changed the caller's index")
	}

	// A second apply conflicts on every path, and changes nothing.
	before := read(t, filepath.Join(caller, "committed.txt"))
	_, err = g.Apply(ctx, caller, diff, false)
	var c *Conflict
	if !errors.As(err, &c) {
		t.Fatalf("second apply: %v, want a conflict", err)
	}
	if !slices.Contains(c.Paths, "committed.txt") || !slices.Contains(c.Paths, "agent.txt") {
		t.Errorf("conflict paths %q (%s)", c.Paths, c.Detail)
	}
	if read(t, filepath.Join(caller, "committed.txt")) != before {
		t.Error("a failed apply changed the tree")
	}
}

func TestTakeRefusesOutsideARepository(t *testing.T) {
	g := &Git{Env: Clean(os.Environ())}
	_, err := g.Take(context.Background(), t.TempDir())
	if !errors.Is(err, ErrNotRepo) {
		t.Fatalf("outside a repository: %v, want ErrNotRepo", err)
	}
}

// A checkout from a git URL fetches the commit; one not pushed there is
// a clear error.
func TestCheckoutFromRemote(t *testing.T) {
	ctx := context.Background()
	caller := callerRepo(t)
	bare := filepath.Join(t.TempDir(), "origin.git")
	git(t, caller, "clone", "-q", "--bare", caller, bare)
	g := &Git{Env: Clean(os.Environ()), NoHooks: true}
	snap, err := g.Take(ctx, caller)
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.Checkout(ctx, filepath.Join(t.TempDir(), "s"), "file://"+bare, snap.Commit, snap.Diff)
	if err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(s.Dir, "sub", "changed.txt")) != "new\n" {
		t.Error("the diff was not applied")
	}
	git(t, caller, "commit", "-q", "-m", "two")
	snap2, err := g.Take(ctx, caller)
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Checkout(ctx, filepath.Join(t.TempDir(), "s2"), "file://"+bare, snap2.Commit, nil)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("push it there first")) {
		t.Fatalf("an unpushed commit: %v", err)
	}
}
