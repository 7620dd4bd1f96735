package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// newEnv is an Env rooted in a fresh temporary directory (symlinks
// resolved, so paths compare equal to what Resolve returns).
func newEnv(t *testing.T) *tool.Env {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := &tool.Env{
		Cwd: root, Roots: []string{root}, Files: tool.NewFileState(),
		Jobs: tool.NewJobs(t.TempDir()), Todos: &tool.Todos{}, SpillDir: filepath.Join(t.TempDir(), "spill"),
	}
	t.Cleanup(env.Jobs.KillAll)
	return env
}

// call runs tl with input (marshalled) and fails on an infrastructure error.
func call(t *testing.T, tl tool.Tool, env *tool.Env, input any) tool.Result {
	t.Helper()
	return callCtx(context.Background(), t, tl, env, input)
}

func callCtx(ctx context.Context, t *testing.T, tl tool.Tool, env *tool.Env, input any) tool.Result {
	t.Helper()
	b, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tl.Run(ctx, env, b)
	if err != nil {
		t.Fatalf("%s: infrastructure error: %v", tl.Name(), err)
	}
	return res
}

// check compares a result with what a test expects: an error or not, and
// substrings present.
func check(t *testing.T, name string, res tool.Result, wantErr bool, contains ...string) {
	t.Helper()
	if res.IsError != wantErr {
		t.Errorf("%s: IsError = %v, want %v; output:\n%s", name, res.IsError, wantErr, res.Output)
	}
	for _, c := range contains {
		if !strings.Contains(res.Output, c) {
			t.Errorf("%s: output lacks %q:\n%s", name, c, res.Output)
		}
	}
}

func put(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// waitFor polls cond with a generous deadline: never a fixed sleep as
// synchronisation (the machine may be busy).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// touch sets a file's mtime, so ordering tests do not depend on the clock.
func touch(t *testing.T, path string, mod time.Time) {
	t.Helper()
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
}
