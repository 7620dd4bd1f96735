package tools

import (
	"path/filepath"
	"testing"
)

func TestMultiEdit(t *testing.T) {
	env := newEnv(t)
	m := NewMultiEdit()
	p := filepath.Join(env.Cwd, "f.txt")
	put(t, p, "alpha beta gamma\n")
	call(t, NewRead(), env, map[string]any{"file_path": p})

	type ed = map[string]any
	// The second edit fails: nothing is written.
	res := call(t, m, env, map[string]any{"file_path": p, "edits": []ed{
		{"old_string": "alpha", "new_string": "ALPHA"},
		{"old_string": "missing", "new_string": "x"},
	}})
	check(t, "atomic", res, true, "edit 2 of 2", "no edits were applied")
	if get(t, p) != "alpha beta gamma\n" {
		t.Fatalf("partially applied: %q", get(t, p))
	}
	// Edits apply in order, each to the previous result.
	res = call(t, m, env, map[string]any{"file_path": p, "edits": []ed{
		{"old_string": "alpha", "new_string": "one"},
		{"old_string": "one beta", "new_string": "two"},
		{"old_string": "a", "new_string": "A", "replace_all": true},
	}})
	check(t, "sequential", res, false, "Applied 3 edits")
	if got := get(t, p); got != "two gAmmA\n" {
		t.Errorf("file %q", got)
	}
	check(t, "empty", call(t, m, env, map[string]any{"file_path": p, "edits": []ed{}}), true, "empty")
	// Create with an empty first old_string, then edit the new text.
	n := filepath.Join(env.Cwd, "n.txt")
	res = call(t, m, env, map[string]any{"file_path": n, "edits": []ed{
		{"old_string": "", "new_string": "x y"},
		{"old_string": "y", "new_string": "z"},
	}})
	check(t, "create", res, false, "created")
	if get(t, n) != "x z" {
		t.Errorf("created %q", get(t, n))
	}
	// Unread file refused.
	u := filepath.Join(env.Cwd, "u.txt")
	put(t, u, "q")
	check(t, "unread", call(t, m, env, map[string]any{"file_path": u, "edits": []ed{{"old_string": "q", "new_string": "r"}}}), true, "not been read")
}
