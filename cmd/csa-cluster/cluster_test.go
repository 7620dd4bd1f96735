package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/cluster/clustertest"
	"github.com/csa-dev/csa/internal/session"
)

// projectDir is a directory every machine sees at the same path, not a
// git repository: runs from it are queued with --remote-cwd, the working
// directory being the worker's own.
func projectDir(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "proj")
	if err := os.MkdirAll(filepath.Join(p, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	p, _ = filepath.EvalSymlinks(p)
	return p
}

func clusterStatus(t *testing.T, m *machine, dir string) cluster.Status {
	t.Helper()
	var s cluster.Status
	if err := json.Unmarshal([]byte(m.csa(t, dir, "cluster", "status", "--json")), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func waitWorkers(t *testing.T, m *machine, dir string, n int) {
	t.Helper()
	waitFor(t, 30*time.Second, fmt.Sprintf("%d workers heartbeating", n), func() bool {
		return len(clusterStatus(t, m, dir).Workers) == n
	})
}

// Ten remote runs of the fake agent, queued from a third machine, spread
// over two workers of a real 3-node cluster, each worker running at most
// its --max-concurrent at once; csa wait, csa ps and csa cluster status
// on the caller see them.
func TestRemoteRunsSpreadOverWorkers(t *testing.T) {
	c := clustertest.Start(t, 3)
	proj := projectDir(t)
	caller := newMachine(t, "caller", c.URL())
	ws := map[string]*machine{"w1": newMachine(t, "w1", c.URL()), "w2": newMachine(t, "w2", c.URL())}
	for name, m := range ws {
		m.startWorker(t, proj, "--max-concurrent", "2", "--name", name)
	}
	waitWorkers(t, caller, proj, 2)

	const n = 10
	var ids []string
	for i := range n {
		out := caller.csa(t, proj, "run", "--remote", "--remote-cwd", "--tool", "codex", fmt.Sprintf("sleep 400ms; echo run-%d", i))
		id := strings.TrimSpace(out)
		if len(id) != session.IDLen {
			t.Fatalf("csa run --remote printed %q, not a session id", out)
		}
		ids = append(ids, id)
	}
	out := caller.csa(t, proj, append([]string{"wait", "--timeout", "60s", "--json"}, ids...)...)
	var waited struct {
		Sessions []struct{ ID, State, Worker string }
	}
	if err := json.Unmarshal([]byte(out), &waited); err != nil || len(waited.Sessions) != n {
		t.Fatalf("csa wait --json: %v: %s", err, out)
	}

	recs := map[string]cluster.Record{}
	for _, r := range caller.records(t, proj) {
		recs[r.ID] = r
	}
	perWorker := map[string][]cluster.Record{}
	for i, id := range ids {
		r, ok := recs[id]
		if !ok {
			t.Fatalf("session %s has no record", id)
		}
		if r.Status != session.Completed || r.Result != fmt.Sprintf("run-%d", i) || r.StartedAt.IsZero() || r.EndedAt.IsZero() {
			t.Errorf("session %s: state %s, result %q, started %v, ended %v", id, r.Status, r.Result, r.StartedAt, r.EndedAt)
		}
		m, ok := ws[r.Remote.Worker]
		if !ok {
			t.Fatalf("session %s ran on %q, not a worker of the test", id, r.Remote.Worker)
		}
		// The run is a local session in that worker's own store.
		local, _ := filepath.Glob(filepath.Join(m.dir, "state", "projects", "*", "sessions", r.Remote.LocalID, "state.toml"))
		if r.Remote.LocalID == "" || len(local) != 1 {
			t.Errorf("session %s: no local session %q on %s", id, r.Remote.LocalID, r.Remote.Worker)
		}
		perWorker[r.Remote.Worker] = append(perWorker[r.Remote.Worker], r)
	}
	if len(perWorker) != 2 {
		t.Errorf("runs per worker: %v; want both workers used", counts(perWorker))
	}
	for w, rs := range perWorker {
		if got := maxOverlap(rs); got > 2 {
			t.Errorf("%s ran %d at once, over its --max-concurrent 2", w, got)
		}
	}
	t.Logf("runs per worker: %v", counts(perWorker))

	// csa ps on the caller lists them beside its (no) local sessions.
	var rows []struct {
		ID, State, Worker string
	}
	if err := json.Unmarshal([]byte(caller.csa(t, proj, "ps", "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, r := range rows {
		if _, ok := recs[r.ID]; ok && r.State == "completed" && r.Worker == recs[r.ID].Remote.Worker {
			seen++
		}
	}
	if seen != n {
		t.Errorf("csa ps --json shows %d of the %d remote sessions: %+v", seen, n, rows)
	}

	s := clusterStatus(t, caller, proj)
	if s.Queue.Waiting != 0 || s.Queue.Delivering != 0 || len(s.Workers) != 2 {
		t.Errorf("status: queue %+v, workers %+v", s.Queue, s.Workers)
	}
	for _, st := range s.Streams {
		if st.Leader == "" || len(st.Replicas) != 2 {
			t.Errorf("stream %s: leader %q, replicas %+v; want 3 replicas", st.Name, st.Leader, st.Replicas)
		}
	}
}

func counts(m map[string][]cluster.Record) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		out[k] = len(v)
	}
	return out
}

// maxOverlap is the most runs of rs that ran at one instant.
func maxOverlap(rs []cluster.Record) int {
	type edge struct {
		at    time.Time
		delta int
	}
	var es []edge
	for _, r := range rs {
		es = append(es, edge{r.StartedAt, 1}, edge{r.EndedAt, -1})
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i].at.Equal(es[j].at) {
			return es[i].delta < es[j].delta
		}
		return es[i].at.Before(es[j].at)
	})
	cur, max := 0, 0
	for _, e := range es {
		cur += e.delta
		max = maxInt(max, cur)
	}
	return max
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// A worker SIGKILLed mid-run: its session reads crashed, "worker lost",
// within 10 s, and is not run again by the other worker.
func TestWorkerLostMidRun(t *testing.T) {
	c := clustertest.Start(t, 3)
	proj := projectDir(t)
	caller := newMachine(t, "caller", c.URL())
	victim, other := newMachine(t, "victim", c.URL()), newMachine(t, "other", c.URL())
	vw := victim.startWorker(t, proj, "--name", "victim", "--labels", "role=victim")
	other.startWorker(t, proj, "--name", "other")
	waitWorkers(t, caller, proj, 2)

	id := strings.TrimSpace(caller.csa(t, proj, "run", "--remote", "--remote-cwd", "--labels", "role=victim", "--tool", "codex", "sleep 30s; echo never"))
	var localID string
	waitFor(t, 30*time.Second, "the run running on the victim", func() bool {
		for _, r := range caller.records(t, proj) {
			if r.ID == id && r.Status == session.Running {
				localID = r.Remote.LocalID
				return r.Remote.Worker == "victim"
			}
		}
		return false
	})
	t.Cleanup(func() { victim.csaCode(proj, "kill", localID) }) // the orphaned local run

	killed := time.Now()
	if err := vw.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-vw.done
	out, code, stderr := caller.csaCode(proj, "wait", "--json", "--timeout", "30s", id)
	lostAfter := time.Since(killed)
	if code != 1 {
		t.Fatalf("csa wait: exit %d, want 1 (the session failed): %s %s", code, out, stderr)
	}
	var waited struct {
		Sessions []struct{ State, Reason, Worker string }
	}
	if err := json.Unmarshal([]byte(out), &waited); err != nil || len(waited.Sessions) != 1 {
		t.Fatalf("csa wait --json: %v: %s", err, out)
	}
	if s := waited.Sessions[0]; s.State != "crashed" || s.Reason != cluster.WorkerLost || s.Worker != "victim" {
		t.Fatalf("after the worker's SIGKILL: %+v, want crashed, %q, on victim", s, cluster.WorkerLost)
	}
	// The bound is 10 s; a test does not time it on a busy
	// machine (BenchmarkClusterWorkerLost measures it).
	t.Logf("crashed, worker lost, %v after the SIGKILL", lostAfter)

	// Not run again: the other worker took nothing, the queue is empty,
	// and the record still names the victim.
	s := clusterStatus(t, caller, proj)
	if s.Queue.Waiting != 0 || s.Queue.Delivering != 0 {
		t.Errorf("queue after the loss: %+v", s.Queue)
	}
	if local, _ := filepath.Glob(filepath.Join(other.dir, "state", "projects", "*", "sessions", "*")); len(local) != 0 {
		t.Errorf("the other worker ran something: %q", local)
	}
	for _, r := range caller.records(t, proj) {
		if r.ID == id && (r.Status != session.Crashed || r.Remote.Worker != "victim" || r.Failure == nil || r.Failure.Class != session.FailCrashed) {
			t.Errorf("record after the loss: %+v", r)
		}
	}
}

// With --retries 1 a run whose worker is lost is queued again: the record
// reads pending, lists the lost attempt, and the second attempt runs on
// another worker to its end; with its retries spent, a run crashes.
func TestWorkerLostRetried(t *testing.T) {
	c := clustertest.Start(t, 3)
	proj := projectDir(t)
	caller := newMachine(t, "caller", c.URL())
	victim, other := newMachine(t, "victim", c.URL()), newMachine(t, "other", c.URL())
	vw := victim.startWorker(t, proj, "--name", "victim")
	waitWorkers(t, caller, proj, 1)

	gate := filepath.Join(t.TempDir(), "go")
	id := strings.TrimSpace(caller.csa(t, proj, "run", "--remote", "--remote-cwd", "--retries", "1", "--tool", "codex",
		"waitfile "+gate+"; echo attempt done"))
	var localID string
	waitFor(t, 30*time.Second, "the first attempt running on the victim", func() bool {
		r := recordsByID(t, caller, proj)[id]
		localID = r.Remote.LocalID
		return r.Status == session.Running && r.Remote.Worker == "victim"
	})
	t.Cleanup(func() { victim.csaCode(proj, "kill", localID) }) // the orphaned local run
	ow := other.startWorker(t, proj, "--name", "other")
	if err := vw.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-vw.done

	waitFor(t, 60*time.Second, "the second attempt running on the other worker", func() bool {
		r := recordsByID(t, caller, proj)[id]
		return r.Status == session.Running && r.Remote.Worker == "other" && r.Remote.Attempt == 2
	})
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, code, stderr := caller.csaCode(proj, "wait", "--json", "--timeout", "60s", id)
	if code != 0 {
		t.Fatalf("csa wait: exit %d: %s %s", code, out, stderr)
	}
	r := recordsByID(t, caller, proj)[id]
	if r.Status != session.Completed || r.Result != "attempt done" || r.Remote.Worker != "other" || r.Remote.Attempt != 2 ||
		len(r.Remote.Lost) != 1 || r.Remote.Lost[0].Worker != "victim" || r.Remote.Lost[0].Attempt != 1 ||
		r.Remote.Lost[0].LocalID != localID {
		t.Fatalf("record after the retried run: state %s, result %q, worker %s, attempt %d, lost %+v",
			r.Status, r.Result, r.Remote.Worker, r.Remote.Attempt, r.Remote.Lost)
	}

	// Its one retry spent, a run whose worker is lost again crashes.
	id2 := strings.TrimSpace(caller.csa(t, proj, "run", "--remote", "--remote-cwd", "--retries", "0", "--tool", "codex",
		"waitfile "+gate+"-never; echo never"))
	waitFor(t, 30*time.Second, "a run without retries on the other worker", func() bool {
		r := recordsByID(t, caller, proj)[id2]
		localID = r.Remote.LocalID
		return r.Status == session.Running
	})
	t.Cleanup(func() { other.csaCode(proj, "kill", localID) })
	ow.cmd.Process.Signal(syscall.SIGKILL)
	<-ow.done
	out, code, _ = caller.csaCode(proj, "wait", "--json", "--timeout", "60s", id2)
	if r := recordsByID(t, caller, proj)[id2]; code != 1 || r.Status != session.Crashed || r.Reason != cluster.WorkerLost || len(r.Remote.Lost) != 0 {
		t.Fatalf("a run without retries whose worker is lost: exit %d, %s, %q, lost %+v: %s", code, r.Status, r.Reason, r.Remote.Lost, out)
	}
}
