package agents

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestDetectParentFromEnv(t *testing.T) {
	for _, tool := range All {
		got, how := DetectParent(func(k string) string {
			if k == "CSA_TOOL" {
				return string(tool)
			}
			return ""
		})
		if got != tool || how != "CSA_TOOL" {
			t.Errorf("DetectParent with CSA_TOOL=%s = %q, %q", tool, got, how)
		}
	}
}

// startAs runs target through a symlink called name, so that name is the
// process's command, and returns its pid.
func startAs(t *testing.T, name, target string, args ...string) int {
	t.Helper()
	link := filepath.Join(t.TempDir(), name)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(link, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The node stand-in is a shell with a sleeping child: kill both.
		if kids, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "task", strconv.Itoa(cmd.Process.Pid), "children")); err == nil {
			for _, k := range strings.Fields(string(kids)) {
				if pid, err := strconv.Atoi(k); err == nil {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
		cmd.Process.Kill()
		cmd.Wait()
	})
	// Wait (bounded) until the child has exec'd and shows its new name and
	// arguments: during execve the kernel sets comm before the new argument
	// pages, so cmdline may briefly read empty.
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "comm"))
		c, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "cmdline"))
		if (string(b) == name+"\n" && len(c) > 0) || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	return cmd.Process.Pid
}

func TestToolOfProcess(t *testing.T) {
	dir := t.TempDir()
	script := func(pkg string) string {
		p := filepath.Join(dir, "lib", "node_modules", pkg, "bin", "cli.js")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		// "exit 0" after sleep: the shell must not exec sleep in its own place.
		if err := os.WriteFile(p, []byte("sleep 60; exit 0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name   string
		comm   string
		target string
		args   []string
		want   Tool
	}{
		{"claude binary", "claude", "/bin/sleep", []string{"60"}, ClaudeCode},
		{"codex binary", "codex", "/bin/sleep", []string{"60"}, Codex},
		{"gemini binary", "gemini", "/bin/sleep", []string{"60"}, GeminiCLI},
		{"opencode binary", "opencode", "/bin/sleep", []string{"60"}, Opencode},
		{"node running codex", "node", "/bin/sh", []string{script("@openai/codex")}, Codex},
		{"node running gemini", "node", "/bin/sh", []string{script("@google/gemini-cli")}, GeminiCLI},
		{"node running something else", "node", "/bin/sh", []string{script("left-pad")}, ""},
		{"unrelated program", "sleepy", "/bin/sleep", []string{"60"}, ""},
		{"name containing a marker", "claude2", "/bin/sleep", []string{"60"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pid := startAs(t, tt.comm, tt.target, tt.args...)
			if got := toolOfProcess(pid); got != tt.want {
				t.Errorf("toolOfProcess(%s) = %q, want %q", tt.comm, got, tt.want)
			}
			if got := parentOf(pid); got != os.Getpid() {
				t.Errorf("parentOf(%d) = %d, want %d", pid, got, os.Getpid())
			}
		})
	}
	if got := parentOf(1 << 30); got != 0 {
		t.Errorf("parentOf of a missing pid = %d", got)
	}
}
