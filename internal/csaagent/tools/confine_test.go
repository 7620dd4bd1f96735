package tools

import (
	"os"
	"path/filepath"
	"testing"
)

// TestConfinement: every file tool refuses paths outside the roots,
// including through a symlink inside the root that points out.
func TestConfinement(t *testing.T) {
	env := newEnv(t)
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	put(t, filepath.Join(outside, "secret.txt"), "secret")
	if err := os.Symlink(outside, filepath.Join(env.Cwd, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(env.Cwd, "link.txt")); err != nil {
		t.Fatal(err)
	}
	env.Files.Record(filepath.Join(outside, "secret.txt")) // even a known file stays out of reach
	ed := []map[string]any{{"old_string": "secret", "new_string": "gone"}}
	for _, p := range []string{"escape/secret.txt", "link.txt", filepath.Join(outside, "secret.txt"), "../x"} {
		calls := []struct {
			name string
			in   map[string]any
		}{
			{"Read", map[string]any{"file_path": p}},
			{"Write", map[string]any{"file_path": p, "content": "gone"}},
			{"Edit", map[string]any{"file_path": p, "old_string": "secret", "new_string": "gone"}},
			{"MultiEdit", map[string]any{"file_path": p, "edits": ed}},
			{"Glob", map[string]any{"pattern": "*", "path": filepath.Dir(p)}},
			{"Grep", map[string]any{"pattern": "secret", "path": p}},
			{"LS", map[string]any{"path": filepath.Dir(p)}},
		}
		for _, c := range calls {
			if c.name == "Glob" || c.name == "LS" {
				if filepath.Dir(p) == "." {
					continue // the root itself is fine
				}
			}
			tl, _ := ByName(c.name)
			check(t, c.name+" "+p, call(t, tl, env, c.in), true, "outside the allowed directories")
		}
	}
	if get(t, filepath.Join(outside, "secret.txt")) != "secret" {
		t.Fatal("the file outside was changed")
	}
}
