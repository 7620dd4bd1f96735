package tools

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWrite(t *testing.T) {
	env := newEnv(t)
	w, r := NewWrite(), NewRead()
	p := filepath.Join(env.Cwd, "new", "dir", "f.txt")

	check(t, "create", call(t, w, env, map[string]any{"file_path": p, "content": "hi\n"}), false, "created")
	if get(t, p) != "hi\n" || !env.Files.Known(p) {
		t.Fatal("not written or not recorded")
	}
	// Written by us, so known: overwriting needs no Read.
	check(t, "overwrite own", call(t, w, env, map[string]any{"file_path": p, "content": "again"}), false, "overwritten")

	other := filepath.Join(env.Cwd, "other.txt")
	put(t, other, "theirs")
	check(t, "unread", call(t, w, env, map[string]any{"file_path": other, "content": "x"}), true, "has not been read")
	call(t, r, env, map[string]any{"file_path": other})
	// Changed under us after the read.
	put(t, other, "changed!")
	touch(t, other, time.Now().Add(time.Hour))
	check(t, "stale", call(t, w, env, map[string]any{"file_path": other, "content": "x"}), true, "changed since")
	call(t, r, env, map[string]any{"file_path": other})
	check(t, "after reread", call(t, w, env, map[string]any{"file_path": other, "content": "mine"}), false)
	if get(t, other) != "mine" {
		t.Error("not overwritten")
	}

	check(t, "no content", call(t, w, env, map[string]any{"file_path": "x"}), true, "content is required")
	check(t, "outside", call(t, w, env, map[string]any{"file_path": "../evil", "content": ""}), true, "outside")
	check(t, "directory", call(t, w, env, map[string]any{"file_path": env.Cwd, "content": ""}), true, "directory")

	// Mode is kept.
	exe := filepath.Join(env.Cwd, "run.sh")
	put(t, exe, "#!/bin/sh\n")
	os.Chmod(exe, 0o755)
	call(t, r, env, map[string]any{"file_path": exe})
	call(t, w, env, map[string]any{"file_path": exe, "content": "#!/bin/sh\ntrue\n"})
	if fi, _ := os.Stat(exe); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v", fi.Mode())
	}
}
