package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// env is an isolated csa environment for integration tests that need to
// signal csa itself, which a script cannot do precisely.
type env struct {
	t    *testing.T
	dir  string
	vars []string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	e := &env{t: t, dir: dir}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CSA_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") {
			e.vars = append(e.vars, kv)
		}
	}
	isolate(dir, func(k, v string) {
		if v != "" {
			e.vars = append(e.vars, k+"="+v)
		}
	})
	if err := writeFakeConfig(filepath.Join(dir, "cfg")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "proj", ".csa"), 0o755)
	return e
}

func (e *env) cmd(args ...string) *exec.Cmd {
	c := exec.Command("csa", args...)
	c.Dir = filepath.Join(e.dir, "proj")
	c.Env = e.vars
	return c
}

// csa runs csa to completion and returns stdout; it fails the test on an
// exit status other than want.
func (e *env) csa(want int, args ...string) string {
	e.t.Helper()
	var out, errb bytes.Buffer
	c := e.cmd(args...)
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	if code != want {
		e.t.Fatalf("csa %v: exit %d, want %d\nstdout: %s\nstderr: %s", args, code, want, out.String(), errb.String())
	}
	return out.String()
}

type psRow struct {
	ID       string `json:"id"`
	Tool     string `json:"tool"`
	State    string `json:"state"`
	Depth    int    `json:"depth"`
	ParentID string `json:"parent_id"`
	ExitCode *int   `json:"exit_code"`
	Reason   string `json:"reason"`
}

func (e *env) ps() []psRow {
	e.t.Helper()
	var rows []psRow
	if err := json.Unmarshal([]byte(e.csa(0, "ps", "--json")), &rows); err != nil {
		e.t.Fatal(err)
	}
	return rows
}

// waitFile waits for a file to exist and returns its content.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return string(b)
		}
	}
	t.Fatalf("%s never appeared", path)
	return ""
}

func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(b[bytes.LastIndexByte(b, ')'):]), ") Z")
}

func waitDead(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if !alive(pid) {
			return
		}
	}
	t.Fatalf("process %d is still alive", pid)
}

// A SIGKILLed supervisor takes its agent with it (parent-death signal), and
// the next ps records the session as crashed and kills what was left of
// the agent's process group.
func TestSupervisorKilledMeansCrashed(t *testing.T) {
	e := newEnv(t)
	pidfile := filepath.Join(e.dir, "agent.pid")
	c := e.cmd("run", "--tool", "codex", "fork 2; pidfile "+pidfile+"; echo up; sleep 60s")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	agent, _ := strconv.Atoi(waitFile(t, pidfile))
	c.Process.Kill()
	c.Wait()
	waitDead(t, agent)

	rows := e.ps()
	if len(rows) != 1 || rows[0].State != "crashed" {
		t.Fatalf("want one crashed session, got %+v", rows)
	}
	if !strings.Contains(rows[0].Reason, "supervising csa") {
		t.Errorf("reason %q does not say the supervisor died", rows[0].Reason)
	}
	out, _ := exec.Command("pgrep", "-f", "sleep 300").Output()
	for _, p := range strings.Fields(string(out)) {
		pid, _ := strconv.Atoi(p)
		env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if bytes.Contains(env, []byte("CSA_SESSION_ID="+rows[0].ID)) {
			waitDead(t, pid) // SIGKILLed by ps; give the kernel a moment
		}
	}
}

// SIGINT and SIGTERM sent to csa reach the agent's whole group; the run
// ends killed with exit 130.
func TestSignalForwarding(t *testing.T) {
	for name, sig := range map[string]syscall.Signal{"SIGINT": syscall.SIGINT, "SIGTERM": syscall.SIGTERM} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			pidfile := filepath.Join(e.dir, "agent.pid")
			var out bytes.Buffer
			c := e.cmd("run", "--json", "--tool", "codex", "pidfile "+pidfile+"; sleep 60s")
			c.Stdout = &out
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			agent, _ := strconv.Atoi(waitFile(t, pidfile))
			c.Process.Signal(sig)
			err := c.Wait()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
				t.Fatalf("exit: %v, want 130", err)
			}
			waitDead(t, agent)
			var res struct {
				Status  string `json:"status"`
				Failure struct{ Class, Message string }
			}
			if err := json.Unmarshal(out.Bytes(), &res); err != nil {
				t.Fatalf("%v: %s", err, out.String())
			}
			if res.Status != "killed" || res.Failure.Class != "interrupted" || res.Failure.Message != "interrupted by "+name {
				t.Fatalf("got %+v", res)
			}
		})
	}
}

// A detached supervisor that receives SIGTERM stops its agent and records
// the end: the session never stays "running".
func TestDetachedSupervisorTerminated(t *testing.T) {
	e := newEnv(t)
	id := strings.TrimSpace(e.csa(0, "run", "-d", "--tool", "codex", "sleep 60s"))
	var st struct {
		SupervisorPID int    `json:"supervisor_pid"`
		PID           int    `json:"pid"`
		State         string `json:"state"`
	}
	for deadline := time.Now().Add(10 * time.Second); st.PID == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		json.Unmarshal([]byte(e.csa(0, "inspect", "--json", id)), &st)
	}
	if st.SupervisorPID == 0 || st.PID == 0 {
		t.Fatalf("session never started: %+v", st)
	}
	syscall.Kill(st.SupervisorPID, syscall.SIGTERM)
	out := e.csa(1, "wait", "--timeout", "10s", "--json", id)
	if !strings.Contains(out, `"state": "killed"`) {
		t.Fatalf("wait: %s", out)
	}
	waitDead(t, st.PID)
}

// Fifty concurrent runs in one project: every one recorded, none corrupt.
func TestFiftyConcurrentRuns(t *testing.T) {
	e := newEnv(t)
	const n = 50
	var wg sync.WaitGroup
	ids := make([]string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var r struct {
				SessionID string `json:"session_id"`
				Result    string `json:"result"`
			}
			out := e.csa(0, "run", "--json", "--tool", "codex", fmt.Sprintf("echo run %d", i))
			if err := json.Unmarshal([]byte(out), &r); err != nil || r.Result != fmt.Sprintf("run %d", i) {
				t.Errorf("run %d: %v %q", i, err, out)
			}
			ids[i] = r.SessionID
		}(i)
	}
	wg.Wait()
	rows := e.ps()
	if len(rows) != n {
		t.Fatalf("%d sessions listed, want %d", len(rows), n)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if r.State != "completed" || r.ExitCode == nil || *r.ExitCode != 0 {
			t.Errorf("session %s: %s", r.ID, r.State)
		}
		seen[r.ID] = true
	}
	for i, id := range ids {
		if !seen[id] {
			t.Errorf("run %d's session %q is not listed", i, id)
		}
	}
}
