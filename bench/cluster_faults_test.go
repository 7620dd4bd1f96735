package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/cluster/clustertest"
	"github.com/csa-dev/csa/internal/remoterun"
	"github.com/csa-dev/csa/internal/session"
)

// BenchmarkClusterFaults times two of issue 16's fault bounds, which the
// fault tests check happen but do not time: a worker SIGKILLed mid-run,
// to its session reading crashed "worker lost" (bound 10 s), as another
// worker's reaper sees it; and `csa kill` of a remote run, from the
// command's start to the record reading killed (bound 2 s).
func BenchmarkClusterFaults(b *testing.B) {
	nc := clustertest.Start(b, 3)
	proj := clusterProject(b)
	c := connect(b, nc.URL())
	watcher := newClusterMachine(b, "watcher", nc.URL())
	watcher.startWorker(b, proj, "--labels", "role=watch")
	waitWorkersUp(b, c, 1)
	gate := filepath.Join(proj, "gate")
	b.Cleanup(func() { os.WriteFile(gate, nil, 0o644) }) // ends what the lost workers left running

	running := func(id string) {
		deadline := time.Now().Add(60 * time.Second)
		for {
			r, _, err := c.Get(context.Background(), id)
			if err == nil && r.Status == session.Running && r.Remote.LocalID != "" {
				return
			}
			if time.Now().After(deadline) {
				b.Fatalf("session %s not running within 60 s: %+v %v", id, r, err)
			}
			time.Sleep(10 * time.Millisecond) // poll interval
		}
	}
	var lost, killed []time.Duration
	for i := range b.N {
		// A worker lost mid-run.
		vm := newClusterMachine(b, fmt.Sprintf("victim%d", i), nc.URL())
		cmd := exec.Command(csaBin, "worker", "--name", vm.name, "--labels", "role="+vm.name)
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = proj, vm.env, io.Discard, io.Discard
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) { // poll interval
			if beats, err := c.Beats(context.Background()); err == nil && beats[vm.name].ID != "" {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("worker %s not heartbeating within 60 s", vm.name)
			}
		}
		rec, err := c.Submit(context.Background(), remoterun.Request{Tool: "codex", Prompt: "waitfile " + gate, Cwd: proj,
			ProjectRoot: proj, Labels: map[string]string{"role": vm.name}}, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		running(rec.ID)
		t0 := time.Now()
		cmd.Process.Kill()
		cmd.Wait()
		r := waitEnded(b, c, rec.ID, 60*time.Second)
		if r.Status != session.Crashed || r.Reason != cluster.WorkerLost {
			b.Fatalf("lost worker's session: %s, %q", r.Status, r.Reason)
		}
		lost = append(lost, time.Since(t0))

		// csa kill of a remote run.
		rec, err = c.Submit(context.Background(), remoterun.Request{Tool: "codex", Prompt: "waitfile " + gate, Cwd: proj,
			ProjectRoot: proj, Labels: map[string]string{"role": "watch"}}, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		running(rec.ID)
		kill := exec.Command(csaBin, "kill", "--grace", "1s", rec.ID)
		kill.Dir, kill.Env = proj, watcher.env
		t0 = time.Now()
		if out, err := kill.CombinedOutput(); err != nil {
			b.Fatalf("csa kill: %v: %s", err, out)
		}
		if r := waitEnded(b, c, rec.ID, 60*time.Second); r.Status != session.Killed {
			b.Fatalf("killed session: %s", r.Status)
		}
		killed = append(killed, time.Since(t0))
	}
	b.ReportMetric(ms(quantile(lost, 0.5)), "lost-p50-ms")
	b.ReportMetric(ms(slices.Max(lost)), "lost-max-ms")
	b.ReportMetric(ms(quantile(killed, 0.5)), "kill-p50-ms")
	b.ReportMetric(ms(slices.Max(killed)), "kill-max-ms")
	verdict := "met"
	if slices.Max(lost) > 10*time.Second || slices.Max(killed) > 2*time.Second {
		verdict = "NOT met"
	}
	record("cluster-faults", "worker SIGKILLed to crashed; csa kill to killed",
		fmt.Sprintf("lost: p50 %.0f ms, max %.0f ms; kill: p50 %.0f ms, max %.0f ms (n=%d)", ms(quantile(lost, 0.5)),
			ms(slices.Max(lost)), ms(quantile(killed, 0.5)), ms(slices.Max(killed)), len(lost)),
		"<= 10 s / <= 2 s", verdict)
}
