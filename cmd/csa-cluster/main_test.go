package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/testkit/fakeagent"
)

// bin holds csa, csa-cluster, csa-mcp and the fake agent, built for these
// tests: csa hands its cluster commands to the csa-cluster beside it, and
// its MCP hub to the csa-mcp, as installed.
var bin string

func TestMain(m *testing.M) {
	if os.Getenv(hogEnv) != "" {
		hog()
	}
	dir, err := os.MkdirTemp("", "csa-cluster-test")
	if err != nil {
		panic(err)
	}
	_, file, _, _ := runtime.Caller(0)
	build := exec.Command("go", "build", "-o", dir+string(os.PathSeparator), "./cmd/csa", "./cmd/csa-cluster", "./cmd/csa-mcp", "./cmd/fakeagent")
	build.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "csa-cluster tests: go build:", err)
		os.Exit(1)
	}
	bin = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// machine is one csa installation: its own HOME, state directory and
// configuration (every tool is the fake agent, [cluster] url set).
type machine struct {
	name string
	dir  string
	env  []string
}

func newMachine(t *testing.T, name, url string) *machine {
	dir := filepath.Join(t.TempDir(), name)
	cfg := filepath.Join(dir, "cfg")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		t.Fatal(err)
	}
	c := fmt.Sprintf("[cluster]\nurl = %q\n", url) + fakeagent.Config(filepath.Join(bin, "fakeagent"))
	if err := os.WriteFile(filepath.Join(cfg, "config.toml"), []byte(c), 0o600); err != nil {
		t.Fatal(err)
	}
	m := &machine{name: name, dir: dir}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CSA_") && !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "PATH=") {
			m.env = append(m.env, kv)
		}
	}
	// csa on PATH: the fake agent's `csa` directive runs nested runs.
	m.env = append(m.env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+filepath.Join(dir, "home"), "CSA_STATE_DIR="+filepath.Join(dir, "state"),
		"CSA_CONFIG_HOME="+cfg, "XDG_RUNTIME_DIR="+filepath.Join(dir, "run"))
	return m
}

// csa runs this machine's csa in dir and returns its stdout; a failure
// fails the test.
func (m *machine) csa(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, code, stderr := m.csaCode(dir, args...)
	if code != 0 {
		t.Fatalf("%s: csa %s: exit %d: %s", m.name, strings.Join(args, " "), code, stderr)
	}
	return out
}

func (m *machine) csaCode(dir string, args ...string) (string, int, string) {
	cmd := exec.Command(filepath.Join(bin, "csa"), args...)
	cmd.Dir, cmd.Env = dir, m.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	return out.String(), code, errb.String()
}

// worker is a running `csa worker`.
type worker struct {
	cmd  *exec.Cmd
	log  *syncBuffer
	done chan struct{}
}

func (m *machine) startWorker(t *testing.T, dir string, args ...string) *worker {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "csa"), append([]string{"worker"}, args...)...)
	cmd.Dir, cmd.Env = dir, m.env
	w := &worker{cmd: cmd, log: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = w.log, w.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(w.done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-w.done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-w.done
		}
		if t.Failed() {
			t.Logf("%s's log:\n%s", m.name, w.log.String())
		}
	})
	return w
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls cond until it holds or within passes.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(20 * time.Millisecond) // the poll interval of a condition
	}
}

// records is csa-cluster ps --all --json from m.
func (m *machine) records(t *testing.T, dir string) []cluster.Record {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "csa-cluster"), "ps", "--all", "--json")
	cmd.Dir, cmd.Env = dir, m.env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("csa-cluster ps: %v", err)
	}
	var rs []cluster.Record
	if err := json.Unmarshal(out, &rs); err != nil {
		t.Fatalf("csa-cluster ps: %v: %s", err, out)
	}
	return rs
}
