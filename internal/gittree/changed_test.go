package gittree

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// ChangedPaths sees every kind of change against the start commit, the
// agent's own commits included, and never ignored files; paths are the
// repository's, whatever their bytes.
func TestChangedPaths(t *testing.T) {
	dir := callerRepo(t)
	g := &Git{Env: Clean(os.Environ())}
	ctx := context.Background()
	start := git(t, dir, "rev-parse", "HEAD")[:40]
	if got, err := g.ChangedPaths(ctx, dir, start); err != nil || !slices.Equal(got, []string{"blob.bin", "sub/changed.txt", "untracked.txt"}) {
		t.Fatalf("before: %q %v", got, err)
	}
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "agent's own commit")
	write(t, filepath.Join(dir, "sub", "é and space.txt"), "odd name\n")
	write(t, filepath.Join(dir, "top.txt"), "untracked above the directory asked\n")
	if err := os.Remove(filepath.Join(dir, "committed.txt")); err != nil {
		t.Fatal(err)
	}
	got, err := g.ChangedPaths(ctx, filepath.Join(dir, "sub"), start)
	want := []string{"blob.bin", "committed.txt", "sub/changed.txt", "sub/é and space.txt", "top.txt", "untracked.txt"}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("after: %q %v, want %q", got, err, want)
	}
	if _, err := g.ChangedPaths(ctx, t.TempDir(), start); err == nil {
		t.Error("no error outside a repository")
	}
}
