package tool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func realTemp(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestResolve(t *testing.T) {
	root, outside, extra := realTemp(t), realTemp(t), realTemp(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	must(os.WriteFile(filepath.Join(outside, "secret"), []byte("x"), 0o644))
	must(os.Symlink(outside, filepath.Join(root, "escape")))                       // a link out of the root
	must(os.Symlink(filepath.Join(outside, "new"), filepath.Join(root, "dangle"))) // a dangling one
	must(os.Symlink(filepath.Join(root, "sub"), filepath.Join(root, "inside")))    // a link within
	env := &Env{Cwd: root, Roots: []string{root, extra}}

	tests := []struct {
		path, want, err string
	}{
		{"a.txt", filepath.Join(root, "a.txt"), ""},
		{"sub/../b.txt", filepath.Join(root, "b.txt"), ""},
		{filepath.Join(root, "sub", "new", "deep.go"), filepath.Join(root, "sub", "new", "deep.go"), ""},
		{"inside/x", filepath.Join(root, "sub", "x"), ""},
		{filepath.Join(extra, "f"), filepath.Join(extra, "f"), ""},
		{root, root, ""},
		{"../x", "", "outside the allowed directories"},
		{filepath.Join(outside, "secret"), "", "outside"},
		{"escape/secret", "", "really " + filepath.Join(outside, "secret")},
		{"escape/newfile", "", "outside"},
		{"dangle", "", "outside"},
		{"", "", "empty"},
	}
	for _, tt := range tests {
		got, err := env.Resolve(tt.path)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Resolve(%q) = %q, %v; want error containing %q", tt.path, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
}

func TestResolveRootsDefaultToCwd(t *testing.T) {
	root := realTemp(t)
	env := &Env{Cwd: root}
	if _, err := env.Resolve("x"); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Resolve("/"); err == nil {
		t.Fatal("/ resolved within a temp root")
	}
}
