package tools

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestGlob(t *testing.T) {
	env := newEnv(t)
	g := NewGlob()
	now := time.Now()
	files := map[string]time.Duration{ // path -> age
		"a.go": 3 * time.Hour, "sub/b.go": time.Hour, "sub/deep/c.go": 2 * time.Hour,
		"d.txt": 0, ".git/x.go": 0, "node_modules/m/i.go": 0,
	}
	for f, age := range files {
		p := filepath.Join(env.Cwd, f)
		put(t, p, "x")
		touch(t, p, now.Add(-age))
	}
	abs := func(ps ...string) string {
		var out []string
		for _, p := range ps {
			out = append(out, filepath.Join(env.Cwd, p))
		}
		return strings.Join(out, "\n") + "\n"
	}
	tests := []struct {
		name    string
		in      map[string]any
		wantErr bool
		want    string
	}{
		{"newest first", map[string]any{"pattern": "**/*.go"}, false, abs("sub/b.go", "sub/deep/c.go", "a.go")},
		{"top only", map[string]any{"pattern": "*.go"}, false, abs("a.go")},
		{"path", map[string]any{"pattern": "**/*.go", "path": "sub"}, false, abs("sub/b.go", "sub/deep/c.go")},
		{"absolute pattern", map[string]any{"pattern": filepath.Join(env.Cwd, "sub", "*.go")}, false, abs("sub/b.go")},
		{"braces", map[string]any{"pattern": "*.{go,txt}"}, false, abs("d.txt", "a.go")},
		{"skipped unless named", map[string]any{"pattern": "node_modules/**/*.go"}, false, abs("node_modules/m/i.go")},
		{"none", map[string]any{"pattern": "*.rs"}, false, "No files found"},
		{"bad pattern", map[string]any{"pattern": "[a"}, true, "invalid glob"},
		{"outside", map[string]any{"pattern": "*", "path": "/"}, true, "outside"},
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

func TestGlobSubject(t *testing.T) {
	for in, want := range map[string]string{
		`{"pattern":"**/*.go","path":"src"}`: "src",
		`{"pattern":"/etc/**/*.conf"}`:       "/etc",
		`{"pattern":"*.go"}`:                 "",
	} {
		if got := NewGlob().Subject([]byte(in)); got != want {
			t.Errorf("Subject(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestGlobCap(t *testing.T) {
	env := newEnv(t)
	for i := range globMax + 5 {
		put(t, filepath.Join(env.Cwd, "f", strings.Repeat("x", i+1)), "")
	}
	res := call(t, NewGlob(), env, map[string]any{"pattern": "f/*"})
	check(t, "cap", res, false, "truncated: 5 more files")
	if n := strings.Count(res.Output, "\n"); n != globMax+1 {
		t.Errorf("%d lines", n)
	}
}
