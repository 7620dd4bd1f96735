package tools

import (
	"path/filepath"
	"testing"
	"time"
)

func TestEdit(t *testing.T) {
	env := newEnv(t)
	e, r := NewEdit(), NewRead()
	p := filepath.Join(env.Cwd, "f.go")
	const src = "a := 1\nb := 1\nc := 2\n"
	put(t, p, src)

	check(t, "unread", call(t, e, env, map[string]any{"file_path": p, "old_string": "c := 2", "new_string": "c := 3"}), true, "has not been read")
	call(t, r, env, map[string]any{"file_path": p})

	tests := []struct {
		name    string
		in      map[string]any
		wantErr bool
		want    string // the file after
		out     []string
	}{
		{"not unique", map[string]any{"old_string": ":= 1", "new_string": ":= 9"}, true, src, []string{"occurs 2 times"}},
		{"not found", map[string]any{"old_string": "zzz", "new_string": "y"}, true, src, []string{"not found"}},
		{"same", map[string]any{"old_string": "a", "new_string": "a"}, true, src, []string{"the same"}},
		{"empty old on full file", map[string]any{"old_string": "", "new_string": "x"}, true, src, []string{"file is not"}},
		{"unique", map[string]any{"old_string": "c := 2", "new_string": "c := 3"}, false, "a := 1\nb := 1\nc := 3\n", []string{"has been updated", "     3\tc := 3"}},
		{"replace all", map[string]any{"old_string": ":= 1", "new_string": ":= 7", "replace_all": true}, false, "a := 7\nb := 7\nc := 3\n", nil},
	}
	for _, tt := range tests {
		tt.in["file_path"] = p
		check(t, tt.name, call(t, e, env, tt.in), tt.wantErr, tt.out...)
		if got := get(t, p); got != tt.want {
			t.Errorf("%s: file %q, want %q", tt.name, got, tt.want)
		}
	}

	// Changed by someone else since: refused until read again.
	put(t, p, "a := 7\nb := 7\nc := 4\n")
	touch(t, p, time.Now().Add(time.Hour))
	check(t, "stale", call(t, e, env, map[string]any{"file_path": p, "old_string": "c := 4", "new_string": "c := 5"}), true, "changed since")
	call(t, r, env, map[string]any{"file_path": p})
	check(t, "reread", call(t, e, env, map[string]any{"file_path": p, "old_string": "c := 4", "new_string": "c := 5"}), false)

	// An empty old_string creates a new file.
	n := filepath.Join(env.Cwd, "sub", "new.txt")
	check(t, "create", call(t, e, env, map[string]any{"file_path": n, "old_string": "", "new_string": "hello"}), false, "created")
	if get(t, n) != "hello" {
		t.Error("not created")
	}
	check(t, "missing", call(t, e, env, map[string]any{"file_path": "nope", "old_string": "a", "new_string": "b"}), true, "does not exist")
	check(t, "outside", call(t, e, env, map[string]any{"file_path": "/etc/passwd", "old_string": "a", "new_string": "b"}), true, "outside")
}
