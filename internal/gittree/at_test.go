package gittree

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A worktree made from At(ref) starts at ref's commit, holds none of the
// caller's uncommitted changes, and leaves the caller's tree alone; a ref
// that names nothing (or looks like an option) is ErrNoRef.
func TestAtStartsFromRef(t *testing.T) {
	ctx := context.Background()
	g := &Git{Env: Clean(os.Environ())}
	dir := callerRepo(t)
	side := strings.TrimSpace(git(t, dir, "commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "on side"))
	git(t, dir, "branch", "side", side)
	status := git(t, dir, "status", "--porcelain")

	snap, err := g.At(ctx, filepath.Join(dir, "sub"), "side")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Commit != side || snap.Subdir != "sub" || len(snap.Diff) != 0 || snap.Tree != strings.TrimSpace(git(t, dir, "rev-parse", "side^{tree}")) {
		t.Fatalf("snapshot %+v, want commit %s in sub", snap, side)
	}
	wt := filepath.Join(t.TempDir(), "wt")
	branch, start, err := g.AddWorktree(ctx, snap, wt, []string{"csa/x"}, []byte("unused"), Identity{Name: "csa", Email: "csa@localhost"})
	if err != nil || branch != "csa/x" || start != side {
		t.Fatalf("AddWorktree: %s %s %v, want csa/x at %s", branch, start, err, side)
	}
	if got := read(t, filepath.Join(wt, "sub", "changed.txt")); got != "old\n" {
		t.Errorf("the worktree holds the caller's change: %q", got)
	}
	if _, err := os.Stat(filepath.Join(wt, "untracked.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the worktree holds the caller's untracked file: %v", err)
	}
	if got := git(t, dir, "status", "--porcelain"); got != status {
		t.Errorf("the caller's status changed:\n%s\nwas\n%s", got, status)
	}
	for _, ref := range []string{"nosuch", "", "--all", side[:7] + "zz"} {
		if _, err := g.At(ctx, dir, ref); !errors.Is(err, ErrNoRef) {
			t.Errorf("At(%q): %v, want ErrNoRef", ref, err)
		}
	}
}
