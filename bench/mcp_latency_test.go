package bench

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/mcp/mcptest"
)

// BenchmarkMCPLatency is issue 13's second figure: the time a tool call
// takes through the hub against the same server over direct stdio, with 8
// agents calling at once. Direct: each agent has its own server-everything
// (what agents do without the hub). Through the hub: each agent talks to
// its `csa-mcp connect`, which talks to the hub, which talks to the
// server. Every call is an echo, timed by the agent's MCP client (the
// go-sdk). The two are measured in turns within one run, so both see the
// same machine; the figures are the differences of their percentiles.
//
// "path": the hub runs eight servers too, one per agent (--only), so the
// only difference is the way through the bridge and the hub: the hub's
// own cost. "shared": the agents share one server, as they do with the
// hub; then one node process serves eight agents where there were eight.
func BenchmarkMCPLatency(b *testing.B) {
	everything := requireMCP(b, mcptest.Everything)
	b.Run("path", func(b *testing.B) {
		var conf strings.Builder
		for i := range mcpAgents {
			fmt.Fprintf(&conf, "[servers.e%d]\ncommand = %s\n", i, tomlQuote(everything))
		}
		mcpLatency(b, "mcp-latency", "through the bridge and the hub vs direct stdio, a server per agent", conf.String(),
			func(i int) []string { return []string{"--only", fmt.Sprintf("e%d", i)} })
	})
	b.Run("shared", func(b *testing.B) {
		mcpLatency(b, "mcp-latency-shared", "  the same with one server shared by the 8 agents through the hub",
			"[servers.everything]\ncommand = "+tomlQuote(everything)+"\n", func(int) []string { return nil })
	})
}

func mcpLatency(b *testing.B, key, what, conf string, only func(agent int) []string) {
	const rounds, perRound = 20, 25 // calls per agent per round
	everything := requireMCP(b, mcptest.Everything)
	for range b.N {
		w := newWorld(b, key, "")
		h := startMCPHub(b, w, conf)
		direct := make([]*mcpSession, mcpAgents)
		viaHub := make([]*mcpSession, mcpAgents)
		for i := range mcpAgents {
			direct[i] = startSession(b, w, everything)
			viaHub[i] = startSession(b, w, mcpBin, append([]string{"connect", "--socket", h.socket}, only(i)...)...)
		}
		// One turn: every agent makes perRound calls in a row, all agents at
		// once.
		turn := func(sessions []*mcpSession, into *[]time.Duration) {
			var mu sync.Mutex
			var wg sync.WaitGroup
			for i, ss := range sessions {
				wg.Go(func() {
					took := make([]time.Duration, 0, perRound)
					for j := range perRound {
						msg := fmt.Sprintf("agent %d call %d", i, j)
						t0 := time.Now()
						got := ss.call(b, "echo", map[string]any{"message": msg})
						took = append(took, time.Since(t0))
						if got != "Echo: "+msg {
							b.Errorf("agent %d got %q for %q", i, got, msg)
						}
					}
					mu.Lock()
					*into = append(*into, took...)
					mu.Unlock()
				})
			}
			wg.Wait()
		}
		var warm, d, v []time.Duration
		turn(direct, &warm) // warm up both (JIT, first allocations)
		turn(viaHub, &warm)
		for r := range rounds {
			if r%2 == 0 {
				turn(direct, &d)
				turn(viaHub, &v)
			} else {
				turn(viaHub, &v)
				turn(direct, &d)
			}
		}
		dp50, dp99 := quantile(d, 0.5), quantile(d, 0.99)
		vp50, vp99 := quantile(v, 0.5), quantile(v, 0.99)
		add50, add99 := vp50-dp50, vp99-dp99
		b.ReportMetric(ms(dp50), "direct-p50-ms")
		b.ReportMetric(ms(dp99), "direct-p99-ms")
		b.ReportMetric(ms(vp50), "hub-p50-ms")
		b.ReportMetric(ms(vp99), "hub-p99-ms")
		b.ReportMetric(ms(add50), "added-p50-ms")
		b.ReportMetric(ms(add99), "added-p99-ms")
		record(key, "issue 13: a tool call's added time with 8 agents at once (p50 / p99), "+what,
			fmt.Sprintf("%+.2f / %+.2f ms (hub %.2f / %.2f, direct %.2f / %.2f; n=%d each)",
				ms(add50), ms(add99), ms(vp50), ms(vp99), ms(dp50), ms(dp99), len(d)),
			"p50 <= 1 ms, p99 <= 5 ms", verdict(add50 <= time.Millisecond && add99 <= 5*time.Millisecond))
	}
}
