package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/cluster/clustertest"
	"github.com/csa-dev/csa/internal/remoterun"
	"github.com/csa-dev/csa/internal/session"
)

// hogEnv makes the test binary a CPU hog (see TestMain) instead of
// running tests.
const hogEnv = "CSA_TEST_CPU_HOG"

// hog busy-loops on every core until killed.
func hog() {
	for range runtime.NumCPU() - 1 {
		go spin()
	}
	spin()
}

func spin() {
	for n := 0; ; n++ {
	}
}

// startHogs runs a child process busy-looping on every core beside the
// test, killed when the test ends.
func startHogs(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), hogEnv+"=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
}

func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// Issue 23: on a saturated machine no run ends "worker lost" while its
// worker lives. 200 remote runs of the fake agent over two workers, with
// a CPU hog per core beside them: every run completes on its worker, and
// no worker's log tells of a lost worker or a run it stopped.
func TestNoWorkerLostUnderLoad(t *testing.T) {
	c := clustertest.Start(t, 3)
	proj := projectDir(t)
	caller := newMachine(t, "caller", c.URL())
	var ws []*worker
	for _, name := range []string{"w1", "w2"} {
		ws = append(ws, newMachine(t, name, c.URL()).startWorker(t, proj, "--max-concurrent", "4", "--name", name))
	}
	waitWorkers(t, caller, proj, 2)
	cl := openCluster(t, c.URL())
	startHogs(t)

	const n = 200
	start := time.Now()
	ids := make([]string, n)
	for i := range ids {
		req := remoterun.Request{Tool: "codex", Prompt: fmt.Sprintf("echo run-%d", i), Cwd: proj, ProjectRoot: proj}
		rec, err := cl.Submit(context.Background(), req, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = rec.ID
	}
	recs := map[string]*cluster.Record{}
	waitFor(t, 5*time.Minute, fmt.Sprintf("%d runs ended", n), func() bool {
		all, err := cl.List(context.Background())
		if err != nil {
			return false
		}
		ended := 0
		for _, r := range all {
			recs[r.ID] = r
			if r.Status.Ended() {
				ended++
			}
		}
		return ended >= n
	})
	t.Logf("%d runs over 2 workers beside %d CPU hogs in %v, load average %s", n, runtime.NumCPU(), time.Since(start).Round(time.Millisecond), loadAvg())

	lost, other := 0, 0
	for i, id := range ids {
		r := recs[id]
		switch {
		case r.Reason == cluster.WorkerLost:
			lost++
			t.Errorf("session %s: %s, %q on %s", id, r.Status, r.Reason, r.Remote.Worker)
		case r.Status != session.Completed || r.Result != fmt.Sprintf("run-%d", i):
			other++
			t.Errorf("session %s: %s, result %q, reason %q", id, r.Status, r.Result, r.Reason)
		}
	}
	for i, w := range ws {
		for _, line := range strings.Split(w.log.String(), "\n") {
			if strings.Contains(line, " lost") || strings.Contains(line, "stopping its local run") {
				t.Errorf("w%d: %s", i+1, line)
			}
		}
	}
	if lost+other > 0 {
		t.Fatalf("of %d runs, %d ended %q, %d otherwise not completed", n, lost, cluster.WorkerLost, other)
	}
}
