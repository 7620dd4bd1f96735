package plugin

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCopyPluginLinks(t *testing.T) {
	dir := t.TempDir()
	mkt, dest := filepath.Join(dir, "market"), filepath.Join(dir, "copy")
	writeTree(t, dir, map[string]string{"outside.md": "out", "market/shared/a.md": "shared",
		"market/shared/sub/b.md": "deep", "market/p/c.md": "own", "market/p/.git/HEAD": "ref"})
	for name, target := range map[string]string{"own.md": "c.md", "file.md": "../shared/a.md", "dir": "../shared/sub",
		"out.md": filepath.Join(dir, "outside.md"), "broken.md": "gone.md", "up": ".."} {
		if err := os.Symlink(target, filepath.Join(mkt, "p", name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := copyPlugin(filepath.Join(mkt, "p"), dest, mkt); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"own.md": "c.md", "broken.md": "gone.md"} {
		if got, err := os.Readlink(filepath.Join(dest, name)); err != nil || got != want {
			t.Errorf("%s links to %q (%v), want %q", name, got, err, want)
		}
	}
	for name, want := range map[string]string{"c.md": "own", "file.md": "shared", "dir/b.md": "deep"} {
		fi, err := os.Lstat(filepath.Join(dest, name))
		if b, _ := os.ReadFile(filepath.Join(dest, name)); err != nil || !fi.Mode().IsRegular() || string(b) != want {
			t.Errorf("%s: %q, %v; want a copy holding %q", name, b, err, want)
		}
	}
	for _, name := range []string{"out.md", "up", ".git"} {
		if _, err := os.Lstat(filepath.Join(dest, name)); err == nil {
			t.Errorf("%s was copied", name)
		}
	}
}
