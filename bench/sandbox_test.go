package bench

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/agents"

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

// sandboxTaskPrompt is answered by sandboxTaskScript: ten turns, each a
// shell command run by the agent's own tool, then the answer.
const sandboxTaskPrompt = "bench sandbox task"

var sandboxTaskScript = func() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[[rule]]\nname = \"task\"\ncontains = %q\n", sandboxTaskPrompt)
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "  [[rule.step]]\n  shell = 'echo turn %d > t%d.txt && cat t%d.txt'\n", i, i, i)
	}
	fmt.Fprintf(&b, "  [[rule.step]]\n  text = %q\n", agentAnswer)
	return b.String()
}()

// BenchmarkSandboxTask is issue 27's task budget: a 10-turn task of a
// real agent (csa-agent: each turn a shell command its Bash tool runs)
// through `csa run --isolate fs,net` against `--isolate none`, in pairs.
// The median of the per-pair ratio must be at most 1.05.
func BenchmarkSandboxTask(b *testing.B) {
	if abi, why := sandbox.Probe(); abi < sandbox.NetABI {
		b.Skip(why)
	}
	w := newScriptedAgentWorld(b, agents.CSAAgent, "csa-agent", sandboxTaskScript)
	run := func(isolate string) func() time.Duration {
		return func() time.Duration {
			return w.exec(b, csaBin, []string{"run", "--tool", string(w.tool), "--isolate", isolate, sandboxTaskPrompt}, w.env, false, false).wall
		}
	}
	ns, cs, _ := pairs(b, run("none"), run("fs,net"))
	report(b, "none", ns)
	report(b, "fs,net", cs)
	ratios := make([]float64, len(ns))
	for i := range ns {
		ratios[i] = float64(cs[i]) / float64(ns[i])
	}
	slices.Sort(ratios)
	p50, p90 := ratios[len(ratios)/2], ratios[len(ratios)*9/10]
	b.ReportMetric(p50, "ratio-p50")
	load, _ := os.ReadFile("/proc/loadavg")
	b.Logf("ratio per pair p50 %.3f p90 %.3f (n=%d); load %s", p50, p90, len(ratios), strings.Join(strings.Fields(string(load))[:3], " "))
	record("sandbox-task", "a 10-turn csa-agent task, --isolate fs,net vs none, ratio per pair", fmt.Sprintf("p50 %.3f, p90 %.3f", p50, p90),
		"p50 <= 1.05", verdict(p50 <= 1.05))
}
