package main

// Issue 16's faults, each on a real 3-node cluster with real `csa worker`
// processes (their own HOME, state directory and configuration) running
// the fake agent.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/cluster/clustertest"
	"github.com/csa-dev/csa/internal/remoterun"
	"github.com/csa-dev/csa/internal/session"
)

// outputLines reads every message on session id's output subject, in
// order. Right after a server's loss the stream may have no leader yet
// (no responders, timeouts): the read starts over until it succeeds.
func outputLines(t *testing.T, c *cluster.Cluster, id string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var last error
	for ctx.Err() == nil {
		out, err := readOutput(ctx, c, id)
		if err == nil {
			return out
		}
		last = err
		time.Sleep(100 * time.Millisecond) // retry interval
	}
	t.Fatalf("output of %s: %v", id, last)
	return nil
}

func readOutput(ctx context.Context, c *cluster.Cluster, id string) ([]string, error) {
	cons, err := c.Output.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{FilterSubjects: []string{cluster.OutputSubject(id)}})
	if err != nil {
		return nil, err
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for pending := int(info.NumPending); len(out) < pending; {
		batch, err := cons.Fetch(pending-len(out), jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			return nil, err
		}
		n := 0
		for m := range batch.Messages() {
			out = append(out, string(m.Data()))
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("%d of %d messages read, then nothing: %v", len(out), pending, batch.Error())
		}
	}
	return out, nil
}

// localEvents is the events.jsonl of the local session that ran a remote
// one on machine m, line by line.
func localEvents(t *testing.T, m *machine, localID string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(m.dir, "state", "projects", "*", "sessions", localID, session.EventsFile))
	if localID == "" || len(files) != 1 {
		t.Fatalf("%s: no local session %q", m.name, localID)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

func recordsByID(t *testing.T, m *machine, dir string) map[string]cluster.Record {
	out := map[string]cluster.Record{}
	for _, r := range m.records(t, dir) {
		out[r.ID] = r
	}
	return out
}

// A NATS server SIGKILLed while runs are queued and running (the leader
// of the work queue, found from the stream's cluster information): every
// run finishes, each record is complete, and every line of each local
// session's events.jsonl on its worker is on the session's output
// subject exactly once, in order.
func TestNATSServerLostMidRun(t *testing.T) {
	c := clustertest.Start(t, 3)
	proj := projectDir(t)
	caller := newMachine(t, "caller", c.URL())
	ws := map[string]*machine{"w1": newMachine(t, "w1", c.URL()), "w2": newMachine(t, "w2", c.URL())}
	for name, m := range ws {
		m.startWorker(t, proj, "--max-concurrent", "2", "--name", name)
	}
	waitWorkers(t, caller, proj, 2)
	direct := openCluster(t, c.URL())

	const n = 8
	var ids []string
	for i := range n {
		prompt := fmt.Sprintf("echo start-%d; sleep 1500ms; echo middle-%d; sleep 500ms; echo run-%d", i, i, i)
		ids = append(ids, strings.TrimSpace(caller.csa(t, proj, "run", "--remote", "--remote-cwd", "--tool", "codex", prompt)))
	}
	waitFor(t, 30*time.Second, "runs running and runs still queued", func() bool {
		running, pending := 0, 0
		for _, r := range caller.records(t, proj) {
			switch r.Status {
			case session.Running:
				running++
			case session.Pending:
				pending++
			}
		}
		return running > 0 && pending > 0
	})

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	info, err := direct.Runs.Info(ctx)
	if err != nil || info.Cluster == nil || info.Cluster.Leader == "" {
		t.Fatalf("stream %s: no leader: %v", cluster.RunsStream, err)
	}
	leader := info.Cluster.Leader
	victim := -1
	for i, nd := range c.Nodes {
		if nd.Name == leader {
			victim = i
		}
	}
	if victim < 0 {
		t.Fatalf("leader %q is none of the nodes", leader)
	}
	led := []string{cluster.RunsStream}
	for _, s := range []jetstream.Stream{direct.Output} {
		if si, err := s.Info(ctx); err == nil && si.Cluster != nil && si.Cluster.Leader == leader {
			led = append(led, si.Config.Name)
		}
	}
	c.Kill(victim)
	t.Logf("SIGKILLed %s, leader of %v", leader, led)

	out, code, stderr := caller.csaCode(proj, append([]string{"wait", "--timeout", "120s", "--json"}, ids...)...)
	if code != 0 {
		t.Fatalf("csa wait after the server's loss: exit %d: %s %s", code, out, stderr)
	}
	recs := recordsByID(t, caller, proj)
	lines := 0
	for i, id := range ids {
		r := recs[id]
		if r.Status != session.Completed || r.Result != fmt.Sprintf("run-%d", i) || r.ExitCode == nil || *r.ExitCode != 0 {
			t.Errorf("session %s: state %s, result %q, exit %v", id, r.Status, r.Result, r.ExitCode)
			continue
		}
		m, ok := ws[r.Remote.Worker]
		if !ok {
			t.Fatalf("session %s ran on %q", id, r.Remote.Worker)
		}
		local := localEvents(t, m, r.Remote.LocalID)
		published := outputLines(t, direct, id)
		if len(local) == 0 || strings.Join(local, "\n") != strings.Join(published, "\n") {
			t.Errorf("session %s: %d lines in the local events.jsonl on %s, %d published on %s (equal in order: %v)",
				id, len(local), r.Remote.Worker, len(published), cluster.OutputSubject(id),
				strings.Join(local, "\n") == strings.Join(published, "\n"))
		}
		lines += len(local)
	}
	t.Logf("%d runs completed, %d event lines, each published once", n, lines)
}

// The caller's csa SIGKILLed right after it queued a run (the moment the
// request is on the wire, before it can print the id): the run goes on,
// and `csa wait ID` from another process with the caller's configuration
// finds it ended.
func TestCallerKilledAfterQueueing(t *testing.T) {
	c := clustertest.Start(t, 3)
	proj := projectDir(t)
	caller := newMachine(t, "caller", c.URL())
	w := newMachine(t, "w1", c.URL())
	w.startWorker(t, proj, "--name", "w1")
	waitWorkers(t, caller, proj, 1)

	// Core NATS sees every request published to the work queue.
	nc, err := nats.Connect(c.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	reqs := make(chan *nats.Msg, 16)
	sub, err := nc.ChanSubscribe(cluster.RunsSubject, reqs)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	nc.Flush()

	// The kill races the caller's own exit; a caller that exited first
	// proves nothing, so try again (a few times at most).
	var id string
	for attempt := 1; id == "" && attempt <= 5; attempt++ {
		cmd := exec.Command(filepath.Join(bin, "csa"), "run", "--remote", "--remote-cwd", "--tool", "codex", "sleep 1s; echo survived")
		cmd.Dir, cmd.Env = proj, caller.env
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var msg *nats.Msg
		select {
		case msg = <-reqs:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatal("no request queued within 30 s")
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		var req remoterun.Request
		if err := json.Unmarshal(msg.Data, &req); err != nil {
			t.Fatal(err)
		}
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			id = req.ID
			t.Logf("attempt %d: caller SIGKILLed after queueing %s (it printed %q)", attempt, id, stdout.String())
		} else {
			t.Logf("attempt %d: the caller exited (%v) before the kill; again", attempt, cmd.ProcessState)
			caller.csa(t, proj, "wait", "--timeout", "60s", req.ID)
		}
	}
	if id == "" {
		t.Fatal("the caller exited before its SIGKILL in all 5 attempts")
	}

	// Another "shell": a new process with the caller's configuration.
	out, code, stderr := caller.csaCode(proj, "wait", "--json", "--timeout", "60s", id)
	if code != 0 {
		t.Fatalf("csa wait %s: exit %d: %s %s", id, code, out, stderr)
	}
	var waited struct {
		Sessions []struct{ ID, State, Worker, Result string }
	}
	if err := json.Unmarshal([]byte(out), &waited); err != nil || len(waited.Sessions) != 1 {
		t.Fatalf("csa wait --json: %v: %s", err, out)
	}
	if s := waited.Sessions[0]; s.ID != id || s.State != "completed" || s.Worker != "w1" {
		t.Errorf("csa wait: %+v", s)
	}
	if r := recordsByID(t, caller, proj)[id]; r.Result != "survived" {
		t.Errorf("record of %s: result %q, want survived", id, r.Result)
	}
}

// A worker whose machine does not have the requested tool (its config
// names no path for it and its PATH holds none) refuses the run, so that
// another worker takes it: the record names the second worker, the first
// ran nothing and said why.
func TestWorkerWithoutToolRefuses(t *testing.T) {
	c := clustertest.Start(t, 3)
	proj := projectDir(t)
	caller := newMachine(t, "caller", c.URL())
	bare := newMachine(t, "bare", c.URL())
	cfg := fmt.Sprintf("[cluster]\nurl = %q\n[tools.claude-code]\npath = %q\n", c.URL(), filepath.Join(bin, "fakeagent"))
	if err := os.WriteFile(filepath.Join(bare.dir, "cfg", "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(bare.dir, "emptybin")
	os.MkdirAll(empty, 0o700)
	for i, kv := range bare.env {
		if strings.HasPrefix(kv, "PATH=") {
			bare.env[i] = "PATH=" + empty
		}
	}
	bw := bare.startWorker(t, proj, "--name", "bare")
	waitWorkers(t, caller, proj, 1)

	// Only the bare worker is up: it is the one offered the run, and
	// refuses it.
	id := strings.TrimSpace(caller.csa(t, proj, "run", "--remote", "--remote-cwd", "--tool", "codex", "echo took-it"))
	waitFor(t, 30*time.Second, "the bare worker refusing the run", func() bool {
		return strings.Contains(bw.log.String(), "refusing "+id)
	})
	if r := recordsByID(t, caller, proj)[id]; r.Status != session.Pending || r.Remote.Worker != "" {
		t.Fatalf("after the refusal: %s on %q, want pending, no worker", r.Status, r.Remote.Worker)
	}
	full := newMachine(t, "full", c.URL())
	full.startWorker(t, proj, "--name", "full")

	out, code, stderr := caller.csaCode(proj, "wait", "--json", "--timeout", "60s", id)
	if code != 0 {
		t.Fatalf("csa wait: exit %d: %s %s\nbare's log:\n%s", code, out, stderr, bw.log.String())
	}
	r := recordsByID(t, caller, proj)[id]
	if r.Status != session.Completed || r.Remote.Worker != "full" || r.Result != "took-it" {
		t.Errorf("record: %s on %q, result %q; want completed on full", r.Status, r.Remote.Worker, r.Result)
	}
	if local, _ := filepath.Glob(filepath.Join(bare.dir, "state", "projects", "*", "sessions", "*")); len(local) != 0 {
		t.Errorf("the bare worker ran something: %q", local)
	}
	if !strings.Contains(bw.log.String(), "codex is not installed here") {
		t.Errorf("the bare worker's refusal does not say the tool is not installed:\n%s", bw.log.String())
	}
}

// The scenario: 30 remote runs spread over 3 workers, each
// running at most its --max-concurrent 2 at once (checked from the
// recorded start and end times); every run completes exactly once.
func TestThirtyRunsOverThreeWorkers(t *testing.T) {
	c := clustertest.Start(t, 3)
	proj := projectDir(t)
	caller := newMachine(t, "caller", c.URL())
	ws := map[string]*machine{}
	for _, name := range []string{"w1", "w2", "w3"} {
		ws[name] = newMachine(t, name, c.URL())
		ws[name].startWorker(t, proj, "--max-concurrent", "2", "--name", name)
	}
	waitWorkers(t, caller, proj, 3)

	const n = 30
	var ids []string
	for i := range n {
		ids = append(ids, strings.TrimSpace(caller.csa(t, proj, "run", "--remote", "--remote-cwd", "--tool", "codex", fmt.Sprintf("sleep 300ms; echo run-%d", i))))
	}
	out, code, stderr := caller.csaCode(proj, append([]string{"wait", "--timeout", "180s", "--json"}, ids...)...)
	if code != 0 {
		t.Fatalf("csa wait: exit %d: %s %s", code, out, stderr)
	}
	recs := recordsByID(t, caller, proj)
	perWorker := map[string][]cluster.Record{}
	localIDs := map[string]bool{}
	for i, id := range ids {
		r := recs[id]
		if r.Status != session.Completed || r.Result != fmt.Sprintf("run-%d", i) || r.StartedAt.IsZero() || r.EndedAt.IsZero() {
			t.Errorf("session %s: state %s, result %q", id, r.Status, r.Result)
		}
		if _, ok := ws[r.Remote.Worker]; !ok {
			t.Fatalf("session %s ran on %q", id, r.Remote.Worker)
		}
		perWorker[r.Remote.Worker] = append(perWorker[r.Remote.Worker], r)
		localIDs[r.Remote.LocalID] = true
	}
	// Each ran once: the workers' stores hold exactly the 30 local runs.
	total := 0
	for name, m := range ws {
		local, _ := filepath.Glob(filepath.Join(m.dir, "state", "projects", "*", "sessions", "*", "state.toml"))
		for _, l := range local {
			if !localIDs[filepath.Base(filepath.Dir(l))] {
				t.Errorf("%s holds a local session no record names: %s", name, l)
			}
		}
		total += len(local)
	}
	if total != n {
		t.Errorf("%d local sessions on the workers for %d remote runs", total, n)
	}
	for w, rs := range perWorker {
		if got := maxOverlap(rs); got > 2 {
			t.Errorf("%s ran %d at once, over its --max-concurrent 2", w, got)
		}
	}
	if len(perWorker) != 3 {
		t.Errorf("runs per worker: %v; want all three used", counts(perWorker))
	}
	t.Logf("runs per worker: %v", counts(perWorker))
}
