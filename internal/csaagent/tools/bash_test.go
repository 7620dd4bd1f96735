package tools

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// shortGrace makes SIGKILL follow SIGTERM quickly for the test.
func shortGrace(t *testing.T) {
	old := tool.KillGrace
	tool.KillGrace = 200 * time.Millisecond
	t.Cleanup(func() { tool.KillGrace = old })
}

// alive reports whether pid runs (a zombie does not count).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && len(s) > i+2 && s[i+2] != 'Z' && syscall.Kill(pid, 0) == nil
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	waitFor(t, "pid file "+path, func() bool {
		b, err := os.ReadFile(path)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	})
	return pid
}

func TestBash(t *testing.T) {
	env := newEnv(t)
	put(t, filepath.Join(env.Cwd, "f"), "content")
	tests := []struct {
		name    string
		in      map[string]any
		wantErr bool
		want    []string
	}{
		{"ok", map[string]any{"command": "echo hi; echo err >&2", "description": "Say hi"}, false, []string{"hi\nerr\n", "Exit code: 0"}},
		{"cwd", map[string]any{"command": "cat f"}, false, []string{"content\nExit code: 0"}},
		{"exit code", map[string]any{"command": "echo out; exit 3"}, true, []string{"out\n", "Exit code: 3"}},
		{"no stdin", map[string]any{"command": "cat"}, false, []string{"Exit code: 0"}},
		{"empty", map[string]any{"command": " "}, true, []string{"empty"}},
	}
	for _, tt := range tests {
		check(t, tt.name, call(t, NewBash(), env, tt.in), tt.wantErr, tt.want...)
	}
	if ents, _ := os.ReadDir(env.SpillDir); len(ents) != 0 {
		t.Errorf("short outputs left spill files: %v", ents)
	}
}

func TestBashTimeoutKillsGroup(t *testing.T) {
	shortGrace(t)
	env := newEnv(t)
	// The shell and its child ignore SIGTERM: only the SIGKILL after the
	// grace ends them.
	start := time.Now()
	res := call(t, NewBash(), env, map[string]any{
		"command": `trap '' TERM; sleep 300 & echo $! > child; echo waiting; wait`,
		"timeout": 3000,
	})
	check(t, "timeout", res, true, "waiting\n", "timed out after 3000ms")
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v", d)
	}
	child := readPid(t, filepath.Join(env.Cwd, "child"))
	waitFor(t, "the SIGTERM-ignoring child to die", func() bool { return !alive(child) })
}

func TestBashInterrupt(t *testing.T) {
	shortGrace(t)
	env := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tool.Result)
	go func() {
		done <- callCtx(ctx, t, NewBash(), env, map[string]any{"command": "echo partial; echo $$ > pid; sleep 300"})
	}()
	pid := readPid(t, filepath.Join(env.Cwd, "pid"))
	cancel()
	select {
	case res := <-done:
		check(t, "interrupt", res, true, "partial\n", "interrupted")
	case <-time.After(20 * time.Second):
		t.Fatal("Bash did not return after cancel")
	}
	waitFor(t, "the shell to die", func() bool { return !alive(pid) })
}

func TestBashOutputCapSpills(t *testing.T) {
	env := newEnv(t)
	res := call(t, NewBash(), env, map[string]any{"command": "seq 1 20000"})
	check(t, "cap", res, false, "1\n2\n3\n", "19999\n20000\n", "Output truncated", "Exit code: 0")
	if len(res.Output) > MaxOutput+500 {
		t.Errorf("output %d bytes", len(res.Output))
	}
	m := regexp.MustCompile(`full output is in (\S+)`).FindStringSubmatch(res.Output)
	if m == nil {
		t.Fatalf("no spill path in output")
	}
	if !strings.HasPrefix(m[1], env.SpillDir) {
		t.Errorf("spill %s not under %s", m[1], env.SpillDir)
	}
	full := get(t, m[1])
	if !strings.HasPrefix(full, "1\n2\n") || !strings.HasSuffix(full, "\n20000\n") || strings.Count(full, "\n") != 20000 {
		t.Errorf("spill file has %d lines", strings.Count(full, "\n"))
	}
}

func TestBashBackground(t *testing.T) {
	shortGrace(t)
	env := newEnv(t)
	b, out, kill := NewBash(), NewBashOutput(), NewKillShell()

	res := call(t, b, env, map[string]any{"command": "echo hello; echo $$ > pid; sleep 300", "run_in_background": true})
	check(t, "start", res, false, "bash_1")
	pid := readPid(t, filepath.Join(env.Cwd, "pid"))
	var seen strings.Builder
	waitFor(t, "hello", func() bool {
		r := call(t, out, env, map[string]any{"bash_id": "bash_1"})
		seen.WriteString(r.Output)
		return strings.Contains(seen.String(), "hello")
	})
	check(t, "status", call(t, out, env, map[string]any{"bash_id": "bash_1"}), false, "<status>running</status>", "(no new output)")
	check(t, "kill", call(t, kill, env, map[string]any{"shell_id": "bash_1"}), false, "Successfully killed shell: bash_1")
	if alive(pid) {
		t.Error("job shell alive after KillShell")
	}
	check(t, "killed status", call(t, out, env, map[string]any{"bash_id": "bash_1"}), false, "<status>killed</status>")
	check(t, "kill again", call(t, kill, env, map[string]any{"shell_id": "bash_1"}), true, "not running")
	check(t, "unknown", call(t, out, env, map[string]any{"bash_id": "bash_9"}), true, "no background shell")

	call(t, b, env, map[string]any{"command": "echo a; echo b; echo ab; exit 4", "run_in_background": true})
	// Output and exit may arrive in one read or several: what the filter
	// kept, over all of them, is a and ab.
	var kept []string
	waitFor(t, "exit", func() bool {
		r := call(t, out, env, map[string]any{"bash_id": "bash_2", "filter": "^a"})
		if _, o, ok := strings.Cut(r.Output, "<output>\n"); ok {
			o, _, _ = strings.Cut(o, "</output>")
			kept = append(kept, lines(o)...)
		}
		return strings.Contains(r.Output, "exited")
	})
	if strings.Join(kept, ",") != "a,ab" {
		t.Errorf("filtered output: %q", kept)
	}
	check(t, "exit code", call(t, out, env, map[string]any{"bash_id": "bash_2"}), false, "<status>exited</status>", "<exit_code>4</exit_code>")
}
