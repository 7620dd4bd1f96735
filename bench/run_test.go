package bench

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/session"
)

// pairs times two commands side by side, b.N times each, in a random order
// per iteration so that drift of a noisy machine hits both alike. It
// returns the samples of a, of b and of the per-pair difference b-a.
func pairs(b *testing.B, a, c func() time.Duration) (as, cs, diff []time.Duration) {
	for range 5 { // warm the page cache and the binaries
		a()
		c()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	b.ResetTimer()
	for range b.N {
		var da, dc time.Duration
		if rng.IntN(2) == 0 {
			da = a()
			dc = c()
		} else {
			dc = c()
			da = a()
		}
		as, cs, diff = append(as, da), append(cs, dc), append(diff, dc-da)
	}
	b.StopTimer()
	return as, cs, diff
}

// BenchmarkRunOverhead is target 1: `csa run --tool codex "echo hi"` with
// codex pointed at the fake agent, against the fake agent alone. The median
// of the per-pair difference must be at most 5 ms. The disk case keeps the
// state directory on the file system of the temporary directory (what a
// user has); the tmpfs case puts it on /dev/shm, which takes the file
// system's cost of creating files out and leaves csa's own work.
func BenchmarkRunOverhead(b *testing.B) {
	b.Run("disk", func(b *testing.B) {
		runOverhead(b, newWorld(b, "run", ""), "run", "")
	})
	b.Run("tmpfs", func(b *testing.B) {
		if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
			b.Skip("no /dev/shm")
		}
		base := filepath.Join("/dev/shm", filepath.Base(benchDir)+"-run")
		b.Cleanup(func() { os.RemoveAll(base) })
		runOverhead(b, newWorldIn(b, base, ""), "run-tmpfs", " (state on tmpfs)")
	})
}

func runOverhead(b *testing.B, w *world, key, note string) {
	null := devNull(b)
	var dCPU, cCPU []time.Duration
	direct := func() time.Duration {
		c := w.command(b, null, agentBin, "echo hi")
		d := c.timed(b)
		dCPU = append(dCPU, c.cpu())
		return d
	}
	viaCSA := func() time.Duration {
		c := w.command(b, null, csaBin, "run", "--tool", "codex", "echo hi")
		d := c.timed(b)
		cCPU = append(cCPU, c.cpu())
		return d
	}
	if base := os.Getenv("CSA_BENCH_BASE"); base != "" {
		abOverhead(b, w, key, note, base, direct, viaCSA)
		return
	}
	ds, cs, diff := pairs(b, direct, viaCSA)
	d50, d90 := report(b, "agent", ds)
	c50, c90 := report(b, "csa-run", cs)
	o50, o90 := report(b, "overhead", diff)
	checkRunSessions(b, w, len(ds)+5)
	// CPU time: csa's rusage includes the agent it reaped, so the paired
	// difference is csa's own work, with the machine's contention mostly
	// taken out (waits such as fsync are not in it).
	dCPU, cCPU = dCPU[len(dCPU)-len(ds):], cCPU[len(cCPU)-len(ds):]
	cpuDiff := make([]time.Duration, len(ds))
	for i := range ds {
		cpuDiff[i] = cCPU[i] - dCPU[i]
	}
	u50, u90 := report(b, "cpu-overhead", cpuDiff)

	n := fmt.Sprintf("n=%d", len(ds))
	record(key+"-agent", "fakeagent \"echo hi\" (direct)"+note, fmt.Sprintf("p50 %.2f ms, p90 %.2f ms", ms(d50), ms(d90)), n, "info")
	record(key+"-csa", "csa run --tool codex \"echo hi\""+note, fmt.Sprintf("p50 %.2f ms, p90 %.2f ms", ms(c50), ms(c90)), n, "info")
	record(key+"-overhead", "csa run overhead, paired difference"+note, fmt.Sprintf("p50 %.2f ms, p90 %.2f ms", ms(o50), ms(o90)),
		"p50 <= 5 ms", verdict(o50 <= 5*time.Millisecond))
	record(key+"-cpu", "  csa's own CPU time (user+sys, paired)"+note, fmt.Sprintf("p50 %.2f ms, p90 %.2f ms", ms(u50), ms(u90)), "info", "info")
}

// checkRunSessions makes sure every timed csa run really recorded a
// completed session: a fast failure must not pass for a fast run.
func checkRunSessions(b *testing.B, w *world, want int) {
	for _, e := range recordedSessions(b, storeOf(b, w), want) {
		if e.Err != nil || e.State.Status != session.Completed || e.State.Result != "hi" {
			b.Fatalf("session %s: %v %+v", e.ID, e.Err, e.State)
		}
	}
}

// BenchmarkStartup separates the cost of starting the csa binary at all
// (`csa --version`: runtime, package init, cobra) from the work of a run.
func BenchmarkStartup(b *testing.B) {
	w := newWorld(b, "startup", "")
	null := devNull(b)
	direct := func() time.Duration {
		return w.command(b, null, agentBin, "echo hi").timed(b)
	}
	version := func() time.Duration {
		return w.command(b, null, csaBin, "--version").timed(b)
	}
	ds, vs, diff := pairs(b, direct, version)
	report(b, "agent", ds)
	v50, v90 := report(b, "csa-version", vs)
	o50, o90 := report(b, "diff", diff)
	record("startup", "csa --version (process start only)", fmt.Sprintf("p50 %.2f ms, p90 %.2f ms; %+.2f / %+.2f ms vs agent",
		ms(v50), ms(v90), ms(o50), ms(o90)), fmt.Sprintf("n=%d", len(vs)), "info")

}

// abOverhead compares this csa with an earlier build ($CSA_BENCH_BASE, a
// csa binary) in one run: triples of the bare agent, the earlier csa and
// this one, in a random order within each triple, so that both see the
// same machine. It reports each one's overhead over the agent.
func abOverhead(b *testing.B, w *world, key, note, base string, direct, viaCSA func() time.Duration) {
	null := devNull(b)
	viaBase := func() time.Duration {
		return w.command(b, null, base, "run", "--tool", "codex", "echo hi").timed(b)
	}
	fns := []func() time.Duration{direct, viaBase, viaCSA}
	for range 5 {
		for _, f := range fns {
			f()
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var oldDiff, newDiff []time.Duration
	b.ResetTimer()
	for range b.N {
		var got [3]time.Duration
		for _, i := range rng.Perm(3) {
			got[i] = fns[i]()
		}
		oldDiff, newDiff = append(oldDiff, got[1]-got[0]), append(newDiff, got[2]-got[0])
	}
	b.StopTimer()
	o50, o90 := report(b, "base-overhead", oldDiff)
	n50, n90 := report(b, "overhead", newDiff)
	n := fmt.Sprintf("n=%d", len(newDiff))
	record(key+"-base", "csa run overhead, earlier build "+filepath.Base(base)+note, fmt.Sprintf("p50 %.2f ms, p90 %.2f ms", ms(o50), ms(o90)), n, "info")
	record(key+"-overhead", "csa run overhead, this build"+note, fmt.Sprintf("p50 %.2f ms, p90 %.2f ms", ms(n50), ms(n90)),
		"p50 <= earlier build's", verdict(n50 <= o50))
}
