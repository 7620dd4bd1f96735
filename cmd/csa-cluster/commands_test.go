package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/cluster/clustertest"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/session"
)

// openCluster is the test's own client of the cluster, to watch records
// without starting a process per look.
func openCluster(t *testing.T, url string) *cluster.Cluster {
	t.Helper()
	nc, err := cluster.Connect(config.ClusterConfig{URL: url}, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := cluster.Open(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func record(t *testing.T, c *cluster.Cluster, id string) *cluster.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, _, err := c.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// tagged lists this machine's live processes (zombies aside) that carry
// session id in their environment, as the runner tags a run's processes.
func tagged(id string) []string {
	var left []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(env, []byte("CSA_SESSION_ID="+id+"\x00")) {
			continue
		}
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 {
			if f := strings.Fields(string(stat[i+1:])); len(f) > 0 && f[0] == "Z" {
				continue
			}
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		left = append(left, fmt.Sprintf("%d %s", pid, bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))
	}
	return left
}

// csa kill on the caller stops a remote run on its worker within 2 s:
// the fake agent, blocked on a file that never appears, and the child it
// started; the record ends killed and no process of the run is left.
// A run still queued when it is killed never starts.
func TestRemoteKill(t *testing.T) {
	c := clustertest.Start(t, 3)
	proj := projectDir(t)
	caller := newMachine(t, "caller", c.URL())
	w1, w2 := newMachine(t, "w1", c.URL()), newMachine(t, "w2", c.URL())
	w1.startWorker(t, proj, "--name", "w1", "--labels", "role=a")
	w2.startWorker(t, proj, "--name", "w2", "--labels", "role=b")
	waitWorkers(t, caller, proj, 2)
	cl := openCluster(t, c.URL())

	never := filepath.Join(t.TempDir(), "never")
	id := strings.TrimSpace(caller.csa(t, proj, "run", "--remote", "--remote-cwd", "--labels", "role=b", "--tool", "codex",
		"fork 1; echo waiting; waitfile "+never))
	var localID string
	waitFor(t, 30*time.Second, "the run running on w2", func() bool {
		r := record(t, cl, id)
		localID = r.Remote.LocalID
		return r.Status == session.Running && localID != ""
	})
	// The agent and its child: both carry the local session's id.
	waitFor(t, 30*time.Second, "the agent and its child running", func() bool { return len(tagged(localID)) >= 2 })

	start := time.Now()
	kill := make(chan string, 1)
	go func() {
		out, code, stderr := caller.csaCode(proj, "kill", "--grace", "1s", id)
		kill <- fmt.Sprintf("exit %d: %s%s", code, out, stderr)
	}()
	var took time.Duration
	waitFor(t, 30*time.Second, "the record killed", func() bool {
		r := record(t, cl, id)
		took = time.Since(start)
		return r.Status.Ended()
	})
	if r := record(t, cl, id); r.Status != session.Killed || r.Failure == nil || r.Failure.Class != session.FailKilled {
		t.Fatalf("after csa kill: %s, %+v; want killed", r.Status, r.Failure)
	}
	// The bound is 2 s; a test does not time it on a busy machine
	// (BenchmarkClusterFaults measures it).
	t.Logf("killed %v after csa kill started", took)
	if got := <-kill; got != "exit 0: "+id+"\tkilled\n" {
		t.Errorf("csa kill printed %q", got)
	}
	waitFor(t, 30*time.Second, "no process of the run left", func() bool { return len(tagged(localID)) == 0 })

	// Queued: no worker has role=c. Killed, then a worker that could run
	// it starts: the request is dropped, nothing runs.
	qid := strings.TrimSpace(caller.csa(t, proj, "run", "--remote", "--remote-cwd", "--labels", "role=c", "--tool", "codex", "echo never"))
	if out := caller.csa(t, proj, "kill", "--json", qid); !strings.Contains(out, `"state": "killed"`) {
		t.Fatalf("csa kill --json of a queued run: %s", out)
	}
	late := newMachine(t, "late", c.URL())
	late.startWorker(t, proj, "--name", "late", "--labels", "role=c")
	waitWorkers(t, caller, proj, 3)
	waitFor(t, 30*time.Second, "the queue empty", func() bool {
		s := clusterStatus(t, caller, proj)
		return s.Queue.Waiting == 0 && s.Queue.Delivering == 0
	})
	if r := record(t, cl, qid); r.Status != session.Killed || r.Remote.Worker != "" || !r.StartedAt.IsZero() {
		t.Errorf("the queued run after its kill: %s, worker %q, started %v", r.Status, r.Remote.Worker, r.StartedAt)
	}
	if local, _ := filepath.Glob(filepath.Join(late.dir, "state", "projects", "*", "sessions", "*")); len(local) != 0 {
		t.Errorf("the late worker ran something: %q", local)
	}

	// Unknown ids: not_found, exit 2.
	if _, code, stderr := caller.csaCode(proj, "kill", session.NewID(time.Now())); code != 2 || !strings.Contains(stderr, "no remote session") {
		t.Errorf("csa kill of an unknown id: exit %d: %s", code, stderr)
	}
}

// csa logs of a remote session: the text view is the one a local run of
// the same prompt gives; --raw is the worker's output.log byte for byte;
// --events the event lines. logs -f started while the run waits shows
// its first line, then the rest once the run goes on, and ends with it.
func TestRemoteLogs(t *testing.T) {
	c := clustertest.Start(t, 3)
	proj := projectDir(t)
	caller := newMachine(t, "caller", c.URL())
	w1 := newMachine(t, "w1", c.URL())
	w1.startWorker(t, proj, "--name", "w1")
	waitWorkers(t, caller, proj, 1)
	cl := openCluster(t, c.URL())

	const prompt = "echo hello there; echo second line"
	id := strings.TrimSpace(caller.csa(t, proj, "run", "--remote", "--remote-cwd", "--tool", "codex", prompt))
	caller.csa(t, proj, "wait", "--timeout", "60s", id)
	localRun := strings.TrimSpace(caller.csa(t, proj, "run", "-d", "--tool", "codex", prompt))
	caller.csa(t, proj, "wait", "--timeout", "60s", localRun)
	want := caller.csa(t, proj, "logs", localRun)
	if want != "hello there\nsecond line\n" {
		t.Fatalf("local csa logs: %q", want)
	}
	if got := caller.csa(t, proj, "logs", id); got != want {
		t.Errorf("csa logs of the remote run: %q, want %q as the local run's", got, want)
	}
	r := record(t, cl, id)
	outLog, err := os.ReadFile(filepath.Join(w1.dir, "state", "projects", slugDir(t, w1), "sessions", r.Remote.LocalID, session.OutputFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := caller.csa(t, proj, "logs", "--raw", id); got != string(outLog) || len(outLog) == 0 {
		t.Errorf("csa logs --raw: %q, want the worker's output.log %q", got, outLog)
	}
	evs := caller.csa(t, proj, "logs", "--events", id)
	lines := strings.Split(strings.TrimSuffix(evs, "\n"), "\n")
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("csa logs --events: %q is not a JSON line", l)
		}
	}
	if wantN := len(strings.Split(strings.TrimSuffix(caller.csa(t, proj, "logs", "--events", localRun), "\n"), "\n")); len(lines) != wantN {
		t.Errorf("csa logs --events: %d lines, the local run has %d:\n%s", len(lines), wantN, evs)
	}

	// Follow.
	gate := filepath.Join(t.TempDir(), "gate")
	id2 := strings.TrimSpace(caller.csa(t, proj, "run", "--remote", "--remote-cwd", "--tool", "codex", "echo first; waitfile "+gate+"; echo second"))
	cmd := exec.Command(filepath.Join(bin, "csa"), "logs", "-f", id2)
	cmd.Dir, cmd.Env = proj, caller.env
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	waitFor(t, 60*time.Second, "logs -f showing the first line", func() bool { return strings.Contains(out.String(), "first\n") })
	select {
	case err := <-done:
		t.Fatalf("logs -f ended while the run waits: %v: %q", err, out.String())
	default:
	}
	if strings.Contains(out.String(), "second") {
		t.Fatalf("logs -f shows a line the run has not printed: %q", out.String())
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil || out.String() != "first\nsecond\n" {
			t.Errorf("logs -f: %v: %q, want first and second", err, out.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("logs -f did not end with the run: %q", out.String())
	}
	if r := record(t, cl, id2); r.Status != session.Completed {
		t.Errorf("the followed run: %s", r.Status)
	}
}

// slugDir is the one project directory in m's state.
func slugDir(t *testing.T, m *machine) string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(m.dir, "state", "projects", "*"))
	if len(dirs) != 1 {
		t.Fatalf("%s's projects: %q", m.name, dirs)
	}
	return filepath.Base(dirs[0])
}

// csa inspect and csa status of a remote session answer from its record:
// the fields a local session's inspect has, and the worker; an unknown id
// is not_found (exit 2).
func TestRemoteInspectStatus(t *testing.T) {
	c := clustertest.Start(t, 3)
	proj := projectDir(t)
	caller := newMachine(t, "caller", c.URL())
	w1 := newMachine(t, "w1", c.URL())
	w1.startWorker(t, proj, "--name", "w1")
	waitWorkers(t, caller, proj, 1)

	id := strings.TrimSpace(caller.csa(t, proj, "run", "--remote", "--remote-cwd", "--tool", "codex", "echo inspected"))
	caller.csa(t, proj, "wait", "--timeout", "60s", id)
	local := strings.TrimSpace(caller.csa(t, proj, "run", "-d", "--tool", "codex", "echo inspected"))
	caller.csa(t, proj, "wait", "--timeout", "60s", local)

	var remote, loc map[string]any
	if err := json.Unmarshal([]byte(caller.csa(t, proj, "inspect", "--json", id)), &remote); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(caller.csa(t, proj, "inspect", "--json", local)), &loc); err != nil {
		t.Fatal(err)
	}
	// Every field of the local state is there (dir and files are the
	// worker's and are left out).
	for k := range loc {
		if _, ok := remote[k]; !ok && k != "dir" && k != "files" && k != "pid" && k != "pgid" && k != "supervisor_pid" {
			t.Errorf("inspect --json of the remote session lacks %q", k)
		}
	}
	if remote["id"] != id || remote["state"] != "completed" || remote["result"] != "inspected" || remote["worker"] != "w1" || remote["tool"] != "codex" {
		t.Errorf("inspect --json: %v", remote)
	}
	if txt := caller.csa(t, proj, "inspect", id); !strings.Contains(txt, "worker w1") || !strings.Contains(txt, "state = 'completed'") {
		t.Errorf("inspect: %s", txt)
	}

	var st struct {
		Sessions []struct{ SessionID, Tool, State, Worker string } `json:"sessions"`
	}
	out := caller.csa(t, proj, "status", "--json", id)
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Sessions) != 1 || st.Sessions[0].State != "completed" || st.Sessions[0].Worker != "w1" {
		t.Errorf("status --json: %s", out)
	}
	if txt := caller.csa(t, proj, "status", id); !strings.HasPrefix(txt, id) || !strings.Contains(txt, "completed") {
		t.Errorf("status: %q", txt)
	}
	for _, cmd := range []string{"inspect", "status", "logs"} {
		if _, code, stderr := caller.csaCode(proj, cmd, session.NewID(time.Now())); code != 2 || !strings.Contains(stderr, "no remote session") {
			t.Errorf("csa %s of an unknown id: exit %d: %s", cmd, code, stderr)
		}
	}
}

// One csa wait for a local and a remote session: it returns once both
// have ended, with both in its answer (in the order given), exit 1 when
// one of them failed; an unknown remote id among them is not_found.
func TestWaitLocalAndRemote(t *testing.T) {
	c := clustertest.Start(t, 3)
	proj := projectDir(t)
	caller := newMachine(t, "caller", c.URL())
	w1 := newMachine(t, "w1", c.URL())
	w1.startWorker(t, proj, "--name", "w1")
	waitWorkers(t, caller, proj, 1)
	cl := openCluster(t, c.URL())

	gate := filepath.Join(t.TempDir(), "gate")
	remote := strings.TrimSpace(caller.csa(t, proj, "run", "--remote", "--remote-cwd", "--tool", "codex", "waitfile "+gate+"; echo remote done"))
	local := strings.TrimSpace(caller.csa(t, proj, "run", "-d", "--tool", "codex", "echo local done"))

	cmd := exec.Command(filepath.Join(bin, "csa"), "wait", "--json", "--timeout", "60s", local, remote)
	cmd.Dir, cmd.Env = proj, caller.env
	out, errOut := &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	waitFor(t, 60*time.Second, "the local run ended and the remote one running", func() bool {
		o, code, _ := caller.csaCode(proj, "wait", "--timeout", "1ms", local)
		return code == 0 && strings.Contains(o, "completed") &&
			record(t, cl, remote).Status == session.Running
	})
	select {
	case err := <-done:
		t.Fatalf("csa wait returned while the remote run waits: %v: %s %s", err, out.String(), errOut.String())
	default:
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("csa wait: %v: %s", err, errOut.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("csa wait did not return after both ended")
	}
	var ans struct {
		Sessions []struct{ ID, State, Worker string }
	}
	if err := json.Unmarshal([]byte(out.String()), &ans); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if len(ans.Sessions) != 2 || ans.Sessions[0].ID != local || ans.Sessions[0].State != "completed" ||
		ans.Sessions[1].ID != remote || ans.Sessions[1].State != "completed" || ans.Sessions[1].Worker != "w1" {
		t.Errorf("csa wait --json: %s", out.String())
	}

	// A remote run that fails: exit 1.
	bad := strings.TrimSpace(caller.csa(t, proj, "run", "--remote", "--remote-cwd", "--tool", "codex", "exit 3"))
	if o, code, stderr := caller.csaCode(proj, "wait", "--timeout", "60s", local, bad); code != 1 || !strings.Contains(o, bad+"\tfailed") {
		t.Errorf("csa wait with a failed remote run: exit %d: %s %s", code, o, stderr)
	}
	if _, code, stderr := caller.csaCode(proj, "wait", "--timeout", "60s", local, session.NewID(time.Now())); code != 2 || !strings.Contains(stderr, "no remote session") {
		t.Errorf("csa wait with an unknown remote id: exit %d: %s", code, stderr)
	}
}

// csa ps --tree joins remote sessions to their parents: a local run that
// queues a remote child, whose agent queues a remote grandchild from its
// worker (naming its parent by its id there).
func TestPSTreeRemote(t *testing.T) {
	c := clustertest.Start(t, 3)
	proj := projectDir(t)
	caller := newMachine(t, "caller", c.URL())
	w1 := newMachine(t, "w1", c.URL())
	w1.startWorker(t, proj, "--name", "w1")
	waitWorkers(t, caller, proj, 1)

	parent := strings.TrimSpace(caller.csa(t, proj, "run", "-d", "--tool", "codex",
		`csa run --remote --remote-cwd --tool codex "csa run --remote --remote-cwd --tool codex 'echo grandchild'"`))
	caller.csa(t, proj, "wait", "--timeout", "60s", parent)
	child := strings.TrimSpace(caller.csa(t, proj, "logs", parent))
	if len(child) != session.IDLen {
		t.Fatalf("the parent printed %q, not the remote child's id", child)
	}
	caller.csa(t, proj, "wait", "--timeout", "60s", child)
	grandchild := strings.TrimSpace(caller.csa(t, proj, "logs", child))
	if len(grandchild) != session.IDLen {
		t.Fatalf("the remote child printed %q, not the grandchild's id", grandchild)
	}
	caller.csa(t, proj, "wait", "--timeout", "60s", grandchild)

	var roots []*struct {
		ID       string
		Depth    int
		Worker   string
		Children []*struct {
			ID       string
			Depth    int
			Worker   string
			Children []*struct {
				ID    string
				Depth int
			}
		}
	}
	out := caller.csa(t, proj, "ps", "--tree", "--json")
	if err := json.Unmarshal([]byte(out), &roots); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, r := range roots {
		if r.ID != parent {
			continue
		}
		found = true
		if len(r.Children) != 1 || r.Children[0].ID != child || r.Children[0].Depth != 1 || r.Children[0].Worker != "w1" ||
			len(r.Children[0].Children) != 1 || r.Children[0].Children[0].ID != grandchild || r.Children[0].Children[0].Depth != 2 {
			t.Errorf("csa ps --tree --json: %s", out)
		}
	}
	if !found {
		t.Errorf("the local parent is not a root of csa ps --tree: %s", out)
	}
	if txt := caller.csa(t, proj, "ps", "--tree"); !strings.Contains(txt, "└── "+child) || !strings.Contains(txt, "    └── "+grandchild) {
		t.Errorf("csa ps --tree:\n%s", txt)
	}
}

// A kill whose request on the control subject never reached the worker
// (here: none is sent; only the record asks, as csa kill writes it
// first): the worker reads it from the record and stops the run.
func TestKillFromRecord(t *testing.T) {
	c := clustertest.Start(t, 3)
	proj := projectDir(t)
	caller := newMachine(t, "caller", c.URL())
	w := newMachine(t, "w", c.URL())
	w.startWorker(t, proj, "--name", "w")
	waitWorkers(t, caller, proj, 1)
	cl := openCluster(t, c.URL())

	never := filepath.Join(t.TempDir(), "never")
	id := strings.TrimSpace(caller.csa(t, proj, "run", "--remote", "--remote-cwd", "--tool", "codex", "echo waiting; waitfile "+never))
	var localID string
	waitFor(t, 30*time.Second, "the run running", func() bool {
		r := record(t, cl, id)
		localID = r.Remote.LocalID
		return r.Status == session.Running && localID != ""
	})
	waitFor(t, 30*time.Second, "the agent running", func() bool { return len(tagged(localID)) >= 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	grace := int64(1000)
	if _, err := cl.Update(ctx, id, func(r *cluster.Record) error {
		r.Remote.KillRequestedAt, r.Remote.KillGraceMS = time.Now().UTC(), &grace
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "the record ended", func() bool { return record(t, cl, id).Status.Ended() })
	if r := record(t, cl, id); r.Status != session.Killed || r.Failure == nil || r.Failure.Class != session.FailKilled {
		t.Fatalf("after the record's kill request: %s, %+v; want killed", r.Status, r.Failure)
	}
	waitFor(t, 30*time.Second, "no process of the run left", func() bool { return len(tagged(localID)) == 0 })
}

// The limits and the idle timeout of a remote run apply on its worker:
// the worker's local run gets them (recorded there and mirrored into the
// record).
func TestRemoteRunCarriesLimits(t *testing.T) {
	c := clustertest.Start(t, 3)
	proj := projectDir(t)
	caller := newMachine(t, "caller", c.URL())
	w := newMachine(t, "w", c.URL())
	w.startWorker(t, proj, "--name", "w")
	waitWorkers(t, caller, proj, 1)
	cl := openCluster(t, c.URL())

	id := strings.TrimSpace(caller.csa(t, proj, "run", "--remote", "--remote-cwd", "--memory-max-mb", "256", "--pids-max", "64",
		"--enforcement", "BestEffort", "--idle-timeout", "45s", "--no-preflight", "--tool", "codex", "echo limited"))
	if out, code, stderr := caller.csaCode(proj, "wait", "--timeout", "60s", id); code != 0 {
		t.Fatalf("csa wait: exit %d: %s %s", code, out, stderr)
	}
	r := record(t, cl, id)
	if r.Status != session.Completed || r.Result != "limited" || r.IdleMS != 45000 || r.MemoryLimitMB != 256 || r.PidsLimit != 64 {
		t.Fatalf("record: %s, result %q, idle %d ms, memory %d MB, pids %d; want completed, limited, 45000, 256, 64",
			r.Status, r.Result, r.IdleMS, r.MemoryLimitMB, r.PidsLimit)
	}
}
