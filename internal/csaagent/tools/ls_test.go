package tools

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLS(t *testing.T) {
	env := newEnv(t)
	put(t, filepath.Join(env.Cwd, "b.txt"), "")
	put(t, filepath.Join(env.Cwd, "a.log"), "")
	put(t, filepath.Join(env.Cwd, "dir", "x"), "")
	os.Symlink("b.txt", filepath.Join(env.Cwd, "link"))
	tests := []struct {
		name    string
		in      map[string]any
		wantErr bool
		want    string
	}{
		{"all", map[string]any{"path": env.Cwd}, false, "- " + env.Cwd + "/\n  - a.log\n  - b.txt\n  - dir/\n  - link -> b.txt\n"},
		{"ignore", map[string]any{"path": env.Cwd, "ignore": []string{"*.log", "dir/"}}, false, "- " + env.Cwd + "/\n  - b.txt\n  - link -> b.txt\n"},
		{"relative", map[string]any{"path": "dir"}, false, "- " + filepath.Join(env.Cwd, "dir") + "/\n  - x\n"},
		{"file", map[string]any{"path": "b.txt"}, true, "not a directory"},
		{"missing", map[string]any{"path": "nope"}, true, "no such file"},
		{"outside", map[string]any{"path": "/"}, true, "outside"},
	}
	for _, tt := range tests {
		res := call(t, NewLS(), env, tt.in)
		check(t, tt.name, res, tt.wantErr)
		if tt.wantErr {
			check(t, tt.name, res, true, tt.want)
		} else if res.Output != tt.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.name, res.Output, tt.want)
		}
	}
}
