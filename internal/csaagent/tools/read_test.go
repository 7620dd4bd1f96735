package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	env := newEnv(t)
	p := filepath.Join(env.Cwd, "a.txt")
	put(t, p, "one\n\ttwo\nthree")
	var long strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	put(t, filepath.Join(env.Cwd, "long.txt"), long.String())
	put(t, filepath.Join(env.Cwd, "wide.txt"), strings.Repeat("x", 5000)+"\n")
	put(t, filepath.Join(env.Cwd, "empty.txt"), "")
	put(t, filepath.Join(env.Cwd, "bin"), "ELF\x00\x01\x02")

	tests := []struct {
		name    string
		in      map[string]any
		wantErr bool
		want    []string
		not     []string
	}{
		{"whole", map[string]any{"file_path": p}, false, []string{"     1\tone\n", "     2\t\ttwo\n", "     3\tthree\n"}, nil},
		{"relative", map[string]any{"file_path": "a.txt"}, false, []string{"     1\tone"}, nil},
		{"offset limit", map[string]any{"file_path": p, "offset": 2, "limit": 1}, false, []string{"     2\t\ttwo\n", "Showing lines 2-2 of 3"}, []string{"one", "three"}},
		{"line cap", map[string]any{"file_path": "long.txt"}, false, []string{"  2000\tline 2000\n", "Showing lines 1-2000 of 2500"}, []string{"line 2001"}},
		{"offset past cap", map[string]any{"file_path": "long.txt", "offset": 2400}, false, []string{"  2500\tline 2500"}, []string{"Showing"}},
		{"long line", map[string]any{"file_path": "wide.txt"}, false, []string{"truncated: 3000 more bytes"}, []string{strings.Repeat("x", 2001)}},
		{"empty", map[string]any{"file_path": "empty.txt"}, false, []string{"contents are empty"}, nil},
		{"past end", map[string]any{"file_path": p, "offset": 9}, false, []string{"past its end"}, nil},
		{"directory", map[string]any{"file_path": env.Cwd}, true, []string{"is a directory"}, nil},
		{"binary", map[string]any{"file_path": "bin"}, true, []string{"binary file"}, nil},
		{"missing", map[string]any{"file_path": "nope"}, true, []string{"no such file"}, nil},
		{"outside", map[string]any{"file_path": "/etc/hostname"}, true, []string{"outside the allowed directories"}, nil},
	}
	for _, tt := range tests {
		res := call(t, NewRead(), env, tt.in)
		check(t, tt.name, res, tt.wantErr, tt.want...)
		for _, n := range tt.not {
			if strings.Contains(res.Output, n) {
				t.Errorf("%s: output has %q", tt.name, n)
			}
		}
	}
	if !env.Files.Known(p) || env.Files.Known(filepath.Join(env.Cwd, "bin")) {
		t.Errorf("recorded files: %v", env.Files.Paths())
	}
}
