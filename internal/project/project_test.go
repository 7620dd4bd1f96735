package project

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// tempDir returns a symlink-free temporary directory.
func tempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, p string) {
	t.Helper()
	mkdir(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte("gitdir: elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFindRoot(t *testing.T) {
	base := tempDir(t)
	// base/git/.git (dir)            -> root base/git
	// base/gitfile/.git (file)       -> root base/gitfile
	// base/git/sub/.csa (dir)        -> root base/git/sub (nearest wins)
	// base/git/csafile/.csa (file)   -> not a marker: root base/git
	// base/link -> base/git/a        -> resolved before the search
	mkdir(t, filepath.Join(base, "git", ".git"))
	mkdir(t, filepath.Join(base, "git", "a", "b"))
	mkdir(t, filepath.Join(base, "git", "sub", ".csa"))
	mkdir(t, filepath.Join(base, "git", "sub", "deep"))
	writeFile(t, filepath.Join(base, "gitfile", ".git"))
	mkdir(t, filepath.Join(base, "gitfile", "x"))
	writeFile(t, filepath.Join(base, "git", "csafile", ".csa"))
	if err := os.Symlink(filepath.Join(base, "git", "a"), filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, dir, want string
	}{
		{"git dir itself", "git", "git"},
		{"below git dir", "git/a/b", "git"},
		{"unclean path", "git/a/../a/b/", "git"},
		{"git file", "gitfile/x", "gitfile"},
		{"nearest csa dir wins", "git/sub/deep", "git/sub"},
		{"csa file is no marker", "git/csafile", "git"},
		{"through a symlink", "link/b", "git"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FindRoot(filepath.Join(base, tt.dir))
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(base, tt.want); got != want {
				t.Errorf("FindRoot(%q) = %q, want %q", tt.dir, got, want)
			}
		})
	}
}

func TestFindRootNoMarker(t *testing.T) {
	// Only meaningful when no ancestor of the temp dir is a project.
	base := tempDir(t)
	for d := base; ; d = filepath.Dir(d) {
		if ok, _ := isRoot(d); ok {
			t.Skipf("%s holds a project marker", d)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	mkdir(t, filepath.Join(base, "real", "dir"))
	if err := os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "ln")); err != nil {
		t.Fatal(err)
	}
	got, err := FindRoot(filepath.Join(base, "ln", "dir"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(base, "real", "dir"); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestFindRootRelative(t *testing.T) {
	base := tempDir(t)
	mkdir(t, filepath.Join(base, ".csa"))
	mkdir(t, filepath.Join(base, "a"))
	t.Chdir(filepath.Join(base, "a"))
	for _, dir := range []string{"", ".", "../a"} {
		got, err := FindRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got != base {
			t.Errorf("FindRoot(%q) = %q, want %q", dir, got, base)
		}
	}
}

func TestFindRootMissing(t *testing.T) {
	_, err := FindRoot(filepath.Join(tempDir(t), "does-not-exist"))
	if err == nil || !strings.HasPrefix(err.Error(), "find project root: ") {
		t.Fatalf("err = %v", err)
	}
}

func TestSlug(t *testing.T) {
	hash := regexp.MustCompile(`^(.*)-([0-9a-f]{12})$`)
	tests := []struct {
		root, readable string
	}{
		{"/home/ann/src/csa", "src-csa"},
		{"/home/ann/src/csa/", "src-csa"},
		{"/csa", "csa"},
		{"/", "root"},
		{"/home/ann/my project!", "ann-my_project_"},
		{"/home/ann/.dotfiles", "ann-.dotfiles"},
		{"/.hidden/x", "hidden-x"},
		{"/a/ünï", "a-_n_"},
		{"/a/" + strings.Repeat("x", 100), strings.Repeat("x", 64)},
	}
	for _, tt := range tests {
		got := Slug(tt.root)
		m := hash.FindStringSubmatch(got)
		if m == nil {
			t.Errorf("Slug(%q) = %q, want <readable>-<12 hex>", tt.root, got)
			continue
		}
		if m[1] != tt.readable {
			t.Errorf("Slug(%q) = %q, readable part %q, want %q", tt.root, got, m[1], tt.readable)
		}
	}

	// Stable, unique and insensitive to a trailing slash.
	if Slug("/a/b/c") != Slug("/a/b/c/") {
		t.Error("trailing slash changes the slug")
	}
	if Slug("/x/b/c") == Slug("/y/b/c") {
		t.Error("different roots with the same last components share a slug")
	}
	// Pins the format across versions: sha256("/home/ann/src/csa") begins
	// with these digits (printf '/home/ann/src/csa' | sha256sum).
	if got, want := Slug("/home/ann/src/csa"), "src-csa-b573f8580895"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
