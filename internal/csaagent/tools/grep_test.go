package tools

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestGrep(t *testing.T) {
	env := newEnv(t)
	g := NewGrep()
	now := time.Now()
	a, b := filepath.Join(env.Cwd, "a.go"), filepath.Join(env.Cwd, "sub", "b.txt")
	put(t, a, "package a\nfunc Foo() {}\n// foo\nx\ny\nfunc Bar() {}\n")
	put(t, b, "Foo bar\nzip\n")
	put(t, filepath.Join(env.Cwd, "bin.dat"), "Foo\x00\x01")
	put(t, filepath.Join(env.Cwd, ".git", "c.go"), "Foo")
	put(t, filepath.Join(env.Cwd, "node_modules", "d.go"), "Foo")
	touch(t, a, now.Add(-time.Hour))
	touch(t, b, now)

	tests := []struct {
		name    string
		in      map[string]any
		wantErr bool
		want    string
	}{
		{"files newest first", map[string]any{"pattern": "Foo"}, false, "Found 2 files\n" + b + "\n" + a + "\n"},
		{"glob", map[string]any{"pattern": "Foo", "glob": "*.go"}, false, "Found 1 file\n" + a + "\n"},
		{"type", map[string]any{"pattern": "Foo", "type": "go"}, false, "Found 1 file\n" + a + "\n"},
		{"path file", map[string]any{"pattern": "zip", "path": "sub/b.txt"}, false, "Found 1 file\n" + b + "\n"},
		{"count -i", map[string]any{"pattern": "foo", "-i": true, "output_mode": "count", "path": "a.go"}, false, a + ":2\n"},
		{"content", map[string]any{"pattern": "^func", "output_mode": "content"}, false, a + ":2:func Foo() {}\n" + a + ":6:func Bar() {}\n"},
		{"content no -n", map[string]any{"pattern": "^func B", "output_mode": "content", "-n": false}, false, a + ":func Bar() {}\n"},
		{"context", map[string]any{"pattern": "^func", "output_mode": "content", "-A": 1, "path": "a.go"}, false,
			a + ":2:func Foo() {}\n" + a + "-3-// foo\n--\n" + a + ":6:func Bar() {}\n"},
		{"before context", map[string]any{"pattern": "^y", "output_mode": "content", "-B": 2, "path": "a.go"}, false,
			a + "-3-// foo\n" + a + "-4-x\n" + a + ":5:y\n"},
		{"head_limit", map[string]any{"pattern": ".", "output_mode": "content", "path": "a.go", "head_limit": 2}, false,
			a + ":1:package a\n" + a + ":2:func Foo() {}\n[Showing the first 2 lines (head_limit).]\n"},
		{"multiline", map[string]any{"pattern": `Foo\(\) \{\}\n//`, "multiline": true, "output_mode": "content"}, false,
			a + ":2:func Foo() {}\n" + a + ":3:// foo\n"},
		{"no match", map[string]any{"pattern": "nothing here"}, false, "No files found"},
		{"bad regexp", map[string]any{"pattern": "("}, true, "invalid pattern"},
		{"bad mode", map[string]any{"pattern": "x", "output_mode": "lines"}, true, "output_mode"},
		{"bad type", map[string]any{"pattern": "x", "type": "cobol"}, true, "unknown type"},
		{"outside", map[string]any{"pattern": "x", "path": "/etc"}, true, "outside"},
	}
	for _, tt := range tests {
		res := call(t, g, env, tt.in)
		check(t, tt.name, res, tt.wantErr)
		if tt.wantErr {
			check(t, tt.name, res, true, tt.want)
		} else if res.Output != tt.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.name, res.Output, tt.want)
		}
	}
}

func TestGrepOutputCap(t *testing.T) {
	env := newEnv(t)
	put(t, filepath.Join(env.Cwd, "big.txt"), strings.Repeat("match this line\n", 5000))
	res := call(t, NewGrep(), env, map[string]any{"pattern": "match", "output_mode": "content"})
	check(t, "cap", res, false, "Output truncated")
	if len(res.Output) > MaxOutput+200 {
		t.Errorf("output %d bytes", len(res.Output))
	}
}
