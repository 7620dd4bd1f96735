package fsutil_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/fsutil"
)

func TestWriteFileAtomic(t *testing.T) {
	tests := []struct {
		name     string
		existing []byte // nil: no file before
		mode     os.FileMode
		data     []byte
	}{
		{"new file", nil, 0, []byte("hello\n")},
		{"replace longer with shorter", []byte(strings.Repeat("old content ", 100)), 0o600, []byte("new")},
		{"replace shorter with longer", []byte("x"), 0o600, []byte(strings.Repeat("y", 1<<20))},
		{"replace public file", []byte("public"), 0o644, []byte("private now")},
		{"empty data", []byte("something"), 0o600, []byte{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "state.toml")
			if tt.existing != nil {
				if err := os.WriteFile(path, tt.existing, tt.mode); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, tt.mode); err != nil {
					t.Fatal(err)
				}
			}
			if err := fsutil.WriteFileAtomic(path, tt.data); err != nil {
				t.Fatalf("WriteFileAtomic: %v", err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(tt.data) {
				t.Errorf("content = %d bytes %.40q, want %d bytes %.40q", len(got), got, len(tt.data), tt.data)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if m := fi.Mode().Perm(); m != fsutil.FileMode {
				t.Errorf("mode = %v, want %v", m, fsutil.FileMode)
			}
			ents, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(ents) != 1 || ents[0].Name() != "state.toml" {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Errorf("directory holds %v, want only state.toml (no temp files)", names)
			}
		})
	}
}

func TestWriteFileAtomicRepeated(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	for i := 0; i < 20; i++ {
		want := strings.Repeat(string(rune('a'+i)), i+1)
		if err := fsutil.WriteFileAtomic(path, []byte(want)); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != want {
			t.Fatalf("write %d: content %q, %v; want %q", i, got, err, want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries left in the directory, want 1", len(ents))
	}
}

func TestWriteFileAtomicErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		path  string
		setup func(t *testing.T)
	}{
		{"missing directory", filepath.Join(dir, "missing", "state.toml"), nil},
		{"parent is a file", filepath.Join(dir, "file", "state.toml"), func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"target is a non-empty directory", filepath.Join(dir, "isdir"), func(t *testing.T) {
			if err := os.MkdirAll(filepath.Join(dir, "isdir", "child"), 0o700); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != nil {
				tt.setup(t)
			}
			err := fsutil.WriteFileAtomic(tt.path, []byte("data"))
			if err == nil {
				t.Fatal("WriteFileAtomic succeeded, want an error")
			}
			if !strings.Contains(err.Error(), tt.path) {
				t.Errorf("error %q does not name the path %s", err, tt.path)
			}
			// Nothing left behind in the parent that exists.
			parent := filepath.Dir(tt.path)
			if ents, err := os.ReadDir(parent); err == nil {
				for _, e := range ents {
					if strings.Contains(e.Name(), ".tmp-") {
						t.Errorf("temp file %s left behind", e.Name())
					}
				}
			}
		})
	}
}

func TestMkdirPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b", "c")
	if err := fsutil.MkdirPrivate(dir); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if !fi.IsDir() || fi.Mode().Perm() != fsutil.DirMode {
			t.Errorf("%s: mode %v, want directory %v", d, fi.Mode(), fsutil.DirMode)
		}
	}
	if err := fsutil.MkdirPrivate(dir); err != nil {
		t.Errorf("MkdirPrivate of an existing directory: %v", err)
	}
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := fsutil.MkdirPrivate(filepath.Join(file, "sub"))
	if err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("MkdirPrivate below a file = %v, want an error naming the path", err)
	}
}
