package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/lock"
	"github.com/csa-dev/csa/internal/session"
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

// waitRunning waits until csa ps lists a session running.
func (e *env) waitRunning() {
	e.t.Helper()
	for deadline := time.Now().Add(waitBound); ; time.Sleep(10 * time.Millisecond) {
		for _, r := range e.ps() {
			if r.State == "running" {
				return
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatal("no session is recorded running")
		}
	}
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
	out, _ := exec.Command("ps", "-eo", "pid,ppid,pgid,sid,ni,stat,etimes,args").Output()
	t.Fatalf("process %d is still alive\n%s", pid, out)
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
	// The agent may run before its supervisor has recorded it running; a
	// supervisor killed before that leaves no session to list.
	e.waitRunning()
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
	waitDead(t, st.SupervisorPID) // it may still be closing its files
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

// Fifty runs of a tool with max_concurrent = 3, all queued with --wait:
// never more than three inside at once, and every one finishes.
func TestConcurrencySlots(t *testing.T) {
	e := newEnv(t)
	cfg := filepath.Join(e.dir, "proj", ".csa", "config.toml")
	if err := os.WriteFile(cfg, []byte("[tools.codex]\nmax_concurrent = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	counter := filepath.Join(e.dir, "overlap")
	const n = 50
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			e.csa(0, "run", "--wait", "--tool", "codex", fmt.Sprintf("overlap %s 30; echo run %d", counter, i))
		}(i)
	}
	wg.Wait()
	b, _ := os.ReadFile(counter)
	var cur, max int
	fmt.Sscan(string(b), &cur, &max)
	if cur != 0 || max < 1 || max > 3 {
		t.Fatalf("overlap counters %q: at most 3 runs may be inside at once", b)
	}
	rows := e.ps()
	if len(rows) != n {
		t.Fatalf("%d sessions, want %d", len(rows), n)
	}
	for _, r := range rows {
		if r.State != "completed" {
			t.Errorf("session %s: %s (%s)", r.ID, r.State, r.Reason)
		}
	}
	// Detached runs keep their slot in their supervisor; without --wait a
	// fourth run finds every slot taken and is refused (exit 3).
	var ids []string
	for i := 0; i < 3; i++ {
		ids = append(ids, strings.TrimSpace(e.csa(0, "run", "-d", "--tool", "codex", "sleep 10s")))
	}
	out, code, _ := func() (string, int, string) {
		var o, eb bytes.Buffer
		c := e.cmd("run", "--tool", "codex", "echo no room")
		c.Stdout, c.Stderr = &o, &eb
		err := c.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return eb.String(), code, o.String()
	}()
	if code != 3 || !strings.Contains(out, "no slots available for codex (max_concurrent 3)") {
		t.Fatalf("a fourth run: exit %d, %q; want 3 and no slots available", code, out)
	}
	e.csa(0, append([]string{"kill", "--grace", "100ms"}, ids...)...)
}

// The cgroup2 layer against a fake cgroup tree: the run's group is made
// under csa's own cgroup with the limits written, and the program joins
// it through the exec shim before it runs.
func TestCgroup2Layer(t *testing.T) {
	e := newEnv(t)
	root := filepath.Join(e.dir, "cgroupfs")
	own := filepath.Join(root, "csa.slice")
	for _, d := range []string{root, own} {
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "cgroup.controllers"), []byte("cpu memory pids\n"), 0o644)
		os.WriteFile(filepath.Join(d, "cgroup.procs"), nil, 0o644)
		os.WriteFile(filepath.Join(d, "cgroup.subtree_control"), nil, 0o644)
	}
	self := filepath.Join(e.dir, "self-cgroup")
	os.WriteFile(self, []byte("0::/csa.slice\n"), 0o644)
	e.vars = append(e.vars, "CSA_TEST_CGROUP_ROOT="+root, "CSA_TEST_SELF_CGROUP="+self)

	out := e.csa(0, "run", "--json", "--tool", "codex", "--memory-max-mb", "64", "--memory-swap-max-mb", "16", "--pids-max", "20", "echo confined")
	var r struct{ SessionID, Status string }
	json.Unmarshal([]byte(strings.ReplaceAll(out, "session_id", "sessionid")), &r)
	if r.Status != "completed" {
		t.Fatalf("run: %s", out)
	}
	group := filepath.Join(own, "csa-"+r.SessionID)
	for file, want := range map[string]string{"memory.max": "67108864", "memory.swap.max": "16777216", "pids.max": "20"} {
		if b, err := os.ReadFile(filepath.Join(group, file)); err != nil || string(b) != want {
			t.Errorf("%s = %q (%v), want %q", file, b, err, want)
		}
	}
	// The shim wrote the program's pid, the one csa recorded.
	var st struct {
		PID     int    `json:"pid"`
		Sandbox string `json:"sandbox"`
	}
	json.Unmarshal([]byte(e.csa(0, "inspect", "--json", r.SessionID)), &st)
	if b, _ := os.ReadFile(filepath.Join(group, "cgroup.procs")); st.Sandbox != "cgroup2" || string(b) != strconv.Itoa(st.PID) {
		t.Errorf("sandbox %q, cgroup.procs %q, want cgroup2 and pid %d", st.Sandbox, b, st.PID)
	}
	if b, _ := os.ReadFile(filepath.Join(own, "cgroup.subtree_control")); !strings.Contains(string(b), "pids") {
		t.Errorf("controllers not enabled for children: %q", b)
	}
}

// The systemd layer through a fake systemd-run: the program runs in a
// transient scope named after the session, with the limits as properties.
func TestSystemdLayer(t *testing.T) {
	e := newEnv(t)
	bin := filepath.Join(e.dir, "fakebin")
	os.MkdirAll(bin, 0o755)
	logf := filepath.Join(e.dir, "systemd-run.log")
	script := "#!/bin/sh\necho \"$@\" >> " + logf + "\n" +
		"while [ \"$1\" != \"--\" ] && [ $# -gt 0 ]; do [ \"$1\" = true ] && exit 0; shift; done\nshift\nexec \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "systemd-run"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, kv := range e.vars {
		if strings.HasPrefix(kv, "PATH=") {
			e.vars[i] = "PATH=" + bin + ":" + strings.TrimPrefix(kv, "PATH=")
		}
	}
	out := e.csa(0, "run", "--json", "--tool", "codex", "--enforcement", "Required", "--sandbox", "systemd",
		"--memory-max-mb", "100", "--pids-max", "50", "echo scoped")
	if !strings.Contains(out, `"result": "scoped"`) {
		t.Fatalf("run: %s", out)
	}
	var r struct {
		ID string `json:"session_id"`
	}
	json.Unmarshal([]byte(out), &r)
	b, _ := os.ReadFile(logf)
	want := "--user --scope --quiet --collect --unit=csa-" + r.ID + " -p MemoryMax=104857600 -p TasksMax=50 -- "
	if !strings.Contains(string(b), want) {
		t.Fatalf("systemd-run was called with\n%s\nwant %q", b, want)
	}
}

// Ctrl-C during a tier's retry backoff ends csa at once with 130, and no
// further session is started.
func TestInterruptDuringTierBackoff(t *testing.T) {
	e := newEnv(t)
	cfg := "[tiers.t]\nmodels = [\"codex/p1/m1\", \"claude-code/p2/m2\"]\n[failover]\nretries = 2\nbackoff = \"60s\"\n"
	if err := os.WriteFile(filepath.Join(e.dir, "proj", ".csa", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	c := e.cmd("run", "--tier", "t", "ratelimited m1; echo answered")
	var errb bytes.Buffer
	c.Stderr = &errb
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// The first attempt fails rate limited: csa is now in its backoff.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		rows := e.ps()
		if len(rows) == 1 && rows[0].State == "failed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first attempt did not fail: %+v", rows)
		}
	}
	c.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
			t.Fatalf("exit %v, want 130; stderr: %s", err, errb.String())
		}
	case <-time.After(10 * time.Second):
		c.Process.Kill()
		t.Fatal("csa slept out its backoff after SIGINT")
	}
	if !strings.Contains(errb.String(), "interrupted by SIGINT") {
		t.Errorf("stderr %q", errb.String())
	}
	if rows := e.ps(); len(rows) != 1 {
		t.Fatalf("a session was started after the interrupt: %+v", rows)
	}
}

// Nothing of a run outlives its SIGKILLed supervisor, with no other csa
// command run: its keeper ends the agent's child that left the group and
// ignores SIGHUP and SIGTERM. The first run finds no keeper daemon and
// keeps itself (and starts the daemon); the next ones use the daemon.
func TestKeeperEndsWhatSurvivesTheSupervisor(t *testing.T) {
	e := newEnv(t)
	sock := filepath.Join(e.dir, "run", "csa", "keeper-1.sock")
	for i, mode := range []string{"foreground, its own keeper", "foreground, the daemon", "detached, the daemon"} {
		t.Run(mode, func(t *testing.T) {
			if i > 0 {
				waitSocket(t, sock)
			}
			pidfile := filepath.Join(e.dir, fmt.Sprintf("orphan-%d.pid", i))
			prompt := "orphan " + pidfile + "; sleep 60s"
			var sup int
			if strings.HasPrefix(mode, "detached") {
				id := strings.TrimSpace(e.csa(0, "run", "-d", "--tool", "codex", prompt))
				waitFile(t, pidfile)
				// The program may start its child before its supervisor
				// has recorded it running.
				for deadline := time.Now().Add(waitBound); sup <= 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
					var st struct {
						SupervisorPID int `json:"supervisor_pid"`
					}
					json.Unmarshal([]byte(e.csa(0, "inspect", "--json", id)), &st)
					sup = st.SupervisorPID
				}
			} else {
				c := e.cmd("run", "--tool", "codex", prompt)
				if err := c.Start(); err != nil {
					t.Fatal(err)
				}
				defer c.Wait()
				waitFile(t, pidfile)
				sup = c.Process.Pid
			}
			orphan, _ := strconv.Atoi(waitFile(t, pidfile))
			if sup <= 0 || !alive(orphan) {
				t.Fatalf("supervisor %d, orphan %d alive %v", sup, orphan, alive(orphan))
			}
			syscall.Kill(sup, syscall.SIGKILL)
			waitDead(t, orphan)
		})
	}
}

// waitSocket waits until a Unix socket answers.
func waitSocket(t *testing.T, sock string) {
	t.Helper()
	for deadline := time.Now().Add(waitBound); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.Dial("unix", sock)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing answers on %s: %v", sock, err)
		}
	}
}

// The last event of a run is written before the state that ends it:
// whoever sees the session ended finds session.ended in its events.
func TestLastEventBeforeFinalState(t *testing.T) {
	e := newEnv(t)
	for i := 0; i < 40; i++ {
		id := strings.TrimSpace(e.csa(0, "run", "-d", "--tool", "codex", "echo hi"))
		dirs, _ := filepath.Glob(filepath.Join(e.dir, "state", "projects", "*", "sessions", id))
		if len(dirs) != 1 {
			t.Fatalf("no directory for %s", id)
		}
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Microsecond) {
			b, _ := os.ReadFile(filepath.Join(dirs[0], "state.toml"))
			if bytes.Contains(b, []byte("state = 'completed'")) {
				ev, _ := os.ReadFile(filepath.Join(dirs[0], "events.jsonl"))
				if !bytes.Contains(ev, []byte(`"type":"session.ended"`)) {
					t.Fatalf("run %d: state ended, events without session.ended:\n%s", i, ev)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("run %d never completed: %s", i, b)
			}
		}
	}
}

// A supervisor holds its session's lock until it exits, a moment after it
// records the end: a continuation started in that moment (`csa wait ID &&
// csa run --session ID`) waits for it rather than finding the session busy.
func TestContinueWhileTheSupervisorExits(t *testing.T) {
	e := newEnv(t)
	id := strings.TrimSpace(e.csa(0, "run", "-d", "--tool", "codex", "echo one"))
	e.csa(0, "wait", id)
	dirs, _ := filepath.Glob(filepath.Join(e.dir, "state", "projects", "*", "sessions", id))
	if len(dirs) != 1 {
		t.Fatalf("no directory for %s", id)
	}
	// The test plays the exiting supervisor: the run has ended, the lock
	// is still held.
	h, err := lock.AcquireWait(filepath.Join(dirs[0], session.SupervisorLock), waitBound)
	if err != nil {
		t.Fatal(err)
	}
	c := e.cmd("run", "--session", id, "echo two")
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // refused at once before the fix
	h.Release()
	if err := c.Wait(); err != nil {
		t.Fatalf("continuation: %v\n%s", err, errb.String())
	}
	if !strings.HasSuffix(out.String(), "\ntwo\n") {
		t.Fatalf("stdout %q", out.String())
	}
}

// What a detached run's agent leaves running (a daemonized MCP server)
// does not hold the session's lock: the session can be continued.
func TestLeftoverDoesNotHoldTheSessionLock(t *testing.T) {
	e := newEnv(t)
	pidfile := filepath.Join(e.dir, "orphan.pid")
	id := strings.TrimSpace(e.csa(0, "run", "-d", "--tool", "codex", "orphan "+pidfile+"; echo one"))
	e.csa(0, "wait", id)
	orphan, _ := strconv.Atoi(waitFile(t, pidfile))
	defer syscall.Kill(orphan, syscall.SIGKILL)
	if !alive(orphan) {
		t.Fatal("the agent's child did not outlive the run")
	}
	if out := e.csa(0, "run", "--session", id, "echo two"); !strings.HasSuffix(out, "\ntwo\n") {
		t.Fatalf("stdout %q", out)
	}
}
