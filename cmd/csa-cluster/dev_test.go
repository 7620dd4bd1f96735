package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// csa cluster dev prints its URL, serves JetStream there (a remote run
// queues on it), keeps its state in csa's state directory and exits 0 on
// SIGTERM.
func TestClusterDev(t *testing.T) {
	m := newMachine(t, "dev", "nats://127.0.0.1:1") // the url is set below
	cmd := exec.Command(filepath.Join(bin, "csa"), "cluster", "dev", "--port", "0", "--json")
	cmd.Env = m.env
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	var started struct {
		URL      string `json:"url"`
		StoreDir string `json:"store_dir"`
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || json.Unmarshal([]byte(line), &started) != nil || !strings.HasPrefix(started.URL, "nats://127.0.0.1:") {
		t.Fatalf("csa cluster dev printed %q (%v)", line, err)
	}
	if want := filepath.Join(m.dir, "state", "cluster-dev"); started.StoreDir != want {
		t.Errorf("state in %s, want %s", started.StoreDir, want)
	}
	m = newMachine(t, "caller", started.URL)
	proj := projectDir(t)
	id := strings.TrimSpace(m.csa(t, proj, "run", "--remote", "--remote-cwd", "--tool", "codex", "echo hi"))
	s := clusterStatus(t, m, proj)
	if s.Queue.Waiting != 1 || len(s.Streams) != 4 {
		t.Fatalf("after queueing %s: %+v", id, s)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("csa cluster dev after SIGTERM: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("csa cluster dev did not stop on SIGTERM")
	}
	if _, err := os.Stat(filepath.Join(started.StoreDir, "jetstream")); err != nil {
		t.Fatalf("no JetStream state: %v", err)
	}
}

// Bad input: a clear message and the documented exit status 2.
func TestUsageErrors(t *testing.T) {
	proj := projectDir(t)
	none := newMachine(t, "none", "")
	os.WriteFile(filepath.Join(none.dir, "cfg", "config.toml"), nil, 0o600) // no [cluster]
	away := newMachine(t, "away", "nats://127.0.0.1:1")                     // nothing listens there
	for _, tt := range []struct {
		m    *machine
		args []string
		want string
	}{
		{none, []string{"run", "--remote", "--tool", "codex", "echo hi"}, "no cluster configured"},
		{none, []string{"cluster", "status"}, "no cluster configured"},
		{none, []string{"worker", "--max-concurrent", "0"}, "--max-concurrent N>=1"},
		{none, []string{"worker", "--labels", "gpu"}, `"gpu" is not k=v`},
		{none, []string{"run", "--remote", "-i", "--tool", "codex", "echo hi"}, "--interactive cannot be used with --remote"},
		// Outside a git repository, refused before connecting.
		{away, []string{"run", "--remote", "--tool", "codex", "echo hi"}, "is not in a git repository: a remote run takes its working tree as git"},
		{away, []string{"run", "--remote-cwd", "--tool", "codex", "echo hi"}, "--remote-cwd is for remote runs"},
		{away, []string{"run", "--retries", "1", "--tool", "codex", "echo hi"}, "--retries is for remote runs"},
		{away, []string{"run", "--remote", "--remote-cwd", "--retries", "11", "--tool", "codex", "echo hi"}, "--retries takes 0 to 10, not 11"},
		{away, []string{"run", "--remote", "--remote-cwd", "--sandbox", "bogus", "--tool", "codex", "echo hi"}, "--sandbox:"},
		{away, []string{"run", "--remote", "--remote-cwd", "--tier", "fast", "--tool", "codex", "echo hi"}, "--tier cannot be used with --remote"},
		{away, []string{"apply", "01J0000000000000000000000A"}, "csa apply applies to a git work tree"},
		{none, []string{"apply"}, "csa apply: give a session id (see `csa ps`)"},
	} {
		_, code, stderr := tt.m.csaCode(proj, tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("csa %v: exit %d, %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}
