package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/sandbox"
	"github.com/csa-dev/csa/internal/session"
)

// BenchmarkSandboxStart is issue 27's start budget: `csa run --isolate fs`
// (Landlock over the user's own HOME's secrets), and `--isolate fs,net`
// (the same, plus Landlock's TCP rules and csa's egress proxy started in
// the supervisor), each against `--isolate none`, the same run
// otherwise, in pairs. The median of the paired difference must be at
// most 3 ms.
func BenchmarkSandboxStart(b *testing.B) {
	abi, why := sandbox.Probe()
	if abi == 0 {
		b.Skip(why)
	}
	b.Run("fs", func(b *testing.B) {
		sandboxStart(b, "fs", "sandbox-start", "sandbox-cpu", (*sandbox.Policy).Confined)
	})
	b.Run("fs,net", func(b *testing.B) {
		if abi < sandbox.NetABI {
			b.Skipf("Landlock ABI %d has no TCP rules", abi)
		}
		sandboxStart(b, "fs,net", "sandbox-start-net", "sandbox-net-cpu", func(p *sandbox.Policy) bool { return p.Confined() && p.NetConfined() })
	})
}

// sandboxStart measures `csa run --isolate isolate` against none, and
// records the figures under key and cpuKey; confined tells a session that ran
// confined as asked.
func sandboxStart(b *testing.B, isolate, key, cpuKey string, confined func(*sandbox.Policy) bool) {
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
	ns, fs, diff := pairs(b, run("none", &nCPU), run(isolate, &fCPU))
	report(b, "none", ns)
	report(b, isolate, fs)
	o50, o90 := report(b, "overhead", diff)
	n := 0
	for _, e := range recordedSessions(b, storeOf(b, w), 2*len(ns)+10) {
		if e.Err != nil || e.State.Status != session.Completed || e.State.Result != "hi" {
			b.Fatalf("session %s: %v %+v", e.ID, e.Err, e.State)
		}
		if e.State.Confinement != nil && confined(e.State.Confinement) {
			n++
		}
	}
	if n < len(fs) {
		b.Fatalf("%d sessions confined as --isolate %s asks, want at least %d", n, isolate, len(fs))
	}
	nCPU, fCPU = nCPU[len(nCPU)-len(ns):], fCPU[len(fCPU)-len(ns):]
	cpuDiff := make([]time.Duration, len(ns))
	for i := range ns {
		cpuDiff[i] = fCPU[i] - nCPU[i]
	}
	u50, u90 := report(b, "cpu-overhead", cpuDiff)
	record(key, "csa run --isolate "+isolate+" vs --isolate none, paired difference", fmt.Sprintf("p50 %.2f ms, p90 %.2f ms", ms(o50), ms(o90)),
		"p50 <= 3 ms", verdict(o50 <= 3*time.Millisecond))
	record(cpuKey, "  its CPU time (user+sys, paired)", fmt.Sprintf("p50 %.2f ms, p90 %.2f ms", ms(u50), ms(u90)), fmt.Sprintf("n=%d", len(ns)), "info")
}
