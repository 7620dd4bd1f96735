package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/sandbox"
	"github.com/csa-dev/csa/internal/session"
)

// BenchmarkSandboxStart is issue 27's start budget: `csa run --isolate fs`
// (Landlock over the user's own HOME's secrets) against `--isolate none`,
// the same run otherwise, in pairs. The median of the paired difference
// must be at most 3 ms.
func BenchmarkSandboxStart(b *testing.B) {
	if abi, why := sandbox.Probe(); abi == 0 {
		b.Skip(why)
	}
	w := newWorld(b, "sandbox", "")
	null := devNull(b)
	var nCPU, fCPU []time.Duration
	run := func(isolate string, cpu *[]time.Duration) func() time.Duration {
		return func() time.Duration {
			c := w.command(b, null, csaBin, "run", "--tool", "codex", "--isolate", isolate, "echo hi")
			d := c.timed(b)
			*cpu = append(*cpu, c.cpu())
			return d
		}
	}
	ns, fs, diff := pairs(b, run("none", &nCPU), run("fs", &fCPU))
	report(b, "none", ns)
	report(b, "fs", fs)
	o50, o90 := report(b, "overhead", diff)
	confined := 0
	for _, e := range recordedSessions(b, storeOf(b, w), 2*len(ns)+10) {
		if e.Err != nil || e.State.Status != session.Completed || e.State.Result != "hi" {
			b.Fatalf("session %s: %v %+v", e.ID, e.Err, e.State)
		}
		if e.State.Confinement.Confined() {
			confined++
		}
	}
	if confined < len(fs) {
		b.Fatalf("%d confined sessions, want at least %d", confined, len(fs))
	}
	nCPU, fCPU = nCPU[len(nCPU)-len(ns):], fCPU[len(fCPU)-len(ns):]
	cpuDiff := make([]time.Duration, len(ns))
	for i := range ns {
		cpuDiff[i] = fCPU[i] - nCPU[i]
	}
	u50, u90 := report(b, "cpu-overhead", cpuDiff)
	n := fmt.Sprintf("n=%d", len(ns))
	record("sandbox-start", "csa run --isolate fs vs --isolate none, paired difference", fmt.Sprintf("p50 %.2f ms, p90 %.2f ms", ms(o50), ms(o90)),
		"p50 <= 3 ms", verdict(o50 <= 3*time.Millisecond))
	record("sandbox-cpu", "  its CPU time (user+sys, paired)", fmt.Sprintf("p50 %.2f ms, p90 %.2f ms", ms(u50), ms(u90)), n, "info")
}
