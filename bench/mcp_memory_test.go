package bench

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/csa-dev/csa/internal/mcp/mcptest"
	"github.com/csa-dev/csa/internal/proc"
)

const mcpAgents = 8

// mcpServer is one of the three servers every agent of the memory
// benchmark is configured with, and a call that makes it do some work.
type mcpServer struct {
	name, command string
	args          []string
	env           map[string]string
	cwd           string
	tool          string
	arguments     map[string]any
}

// threeServers: the reference server, the stateful one (its graph file in
// the benchmark's scratch space) and csa's own MCP server.
func threeServers(b *testing.B, w *world) []mcpServer {
	return []mcpServer{
		{name: "everything", command: requireMCP(b, mcptest.Everything),
			tool: "echo", arguments: map[string]any{"message": "hi"}},
		{name: "memory", command: requireMCP(b, mcptest.Memory),
			env:  map[string]string{"MEMORY_FILE_PATH": filepath.Join(w.stateDir, "memory.jsonl")},
			tool: "read_graph", arguments: map[string]any{}},
		{name: "csa", command: mcpBin, args: []string{"server"}, cwd: w.projDir,
			tool: "list_sessions", arguments: map[string]any{}},
	}
}

// memVerdict: the goal is met when both measures save 85%, met by RSS
// alone when only the sum of RSS does (it counts the code pages that the
// processes of one binary share once per process; PSS divides them).
func memVerdict(threeProcs bool, savedRSS, savedPSS float64) string {
	switch {
	case !threeProcs || savedRSS < 85:
		return "NOT MET"
	case savedPSS < 85:
		return fmt.Sprintf("met by RSS; PSS %.0f%%", savedPSS)
	}
	return "met"
}

// mcpMemOf is one process's RSS and PSS.
func mcpMemOf(pid int) (rss, pss int64) {
	rss, _ = proc.RSS(pid)
	return rss, pssOf(pid)
}

func (s mcpServer) toml() string {
	t := fmt.Sprintf("[servers.%s]\ncommand = %s\n", s.name, tomlQuote(s.command))
	if len(s.args) > 0 {
		t += "args = ["
		for i, a := range s.args {
			if i > 0 {
				t += ", "
			}
			t += tomlQuote(a)
		}
		t += "]\n"
	}
	if s.cwd != "" {
		t += "cwd = " + tomlQuote(s.cwd) + "\n"
	}
	for k, v := range s.env {
		t += fmt.Sprintf("env.%s = %s\n", k, tomlQuote(v))
	}
	return t
}

// BenchmarkMCPMemory is issue 13's first figure: 8 agents each configured
// with 3 MCP servers. Without the hub every agent starts its own copy of
// each (24 processes); with it they share one of each (3). Each agent
// lists every server's tools and calls one tool of each; then the resident
// memory of every server's process tree is summed. The hub's own process
// and the agents' `csa-mcp connect` bridges are reported beside it: they
// are the price of sharing.
func BenchmarkMCPMemory(b *testing.B) {
	for range b.N {
		w := newWorld(b, "mcp-memory", "")
		servers := threeServers(b, w)
		env := w.env

		// Without the hub: 24 servers over stdio.
		var direct []*mcpSession
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range mcpAgents {
			for _, s := range servers {
				wg.Go(func() {
					w := *w
					w.env = env
					for k, v := range s.env {
						w.env = append(w.env, k+"="+v)
					}
					if s.cwd != "" {
						w.projDir = s.cwd
					}
					ss := startSession(b, &w, s.command, s.args...)
					if _, err := ss.ListTools(b.Context(), nil); err != nil {
						b.Error(err)
						return
					}
					ss.call(b, s.tool, s.arguments)
					mu.Lock()
					direct = append(direct, ss)
					mu.Unlock()
				})
			}
		}
		wg.Wait()
		var directRSS, directPSS int64
		directProcs := 0
		for _, ss := range direct {
			rss, pss, n := treeMem(ss.cmd.Process.Pid)
			directRSS, directPSS, directProcs = directRSS+rss, directPSS+pss, directProcs+n
		}
		for _, ss := range direct {
			ss.Close()
		}
		if len(direct) != mcpAgents*len(servers) || directProcs != len(direct) {
			b.Fatalf("without the hub: %d sessions, %d processes; want %d of each", len(direct), directProcs, mcpAgents*len(servers))
		}

		// With the hub: 8 bridges to one hub sharing 3 servers.
		conf := ""
		for _, s := range servers {
			conf += s.toml()
		}
		h := startMCPHub(b, w, conf)
		bridges := make([]*mcpSession, mcpAgents)
		for i := range bridges {
			wg.Go(func() {
				ss := startSession(b, w, mcpBin, "connect", "--socket", h.socket)
				if _, err := ss.ListTools(b.Context(), nil); err != nil {
					b.Error(err)
					return
				}
				for _, s := range servers {
					ss.call(b, s.tool, s.arguments)
				}
				bridges[i] = ss
			})
		}
		wg.Wait()
		rep := h.report(b)
		var hubRSS, hubPSS int64
		hubProcs := 0
		for _, be := range rep.Backends {
			if be.PID == 0 {
				b.Fatalf("backend %s not running", be.Name)
			}
			rss, pss, n := treeMem(be.PID)
			hubRSS, hubPSS, hubProcs = hubRSS+rss, hubPSS+pss, hubProcs+n
		}
		if len(rep.Backends) != len(servers) || hubProcs != len(servers) {
			b.Fatalf("with the hub: %d backends, %d processes; want %d", len(rep.Backends), hubProcs, len(servers))
		}
		ownRSS, ownPSS := mcpMemOf(rep.PID) // the hub process alone
		var bridgeRSS, bridgePSS int64
		for _, ss := range bridges {
			rss, pss := mcpMemOf(ss.cmd.Process.Pid)
			bridgeRSS, bridgePSS = bridgeRSS+rss, bridgePSS+pss
		}
		saved := pctLess(hubRSS, directRSS)
		savedPSS := pctLess(hubPSS, directPSS)
		savedAll := pctLess(hubPSS+ownPSS+bridgePSS, directPSS)
		b.ReportMetric(float64(directProcs), "procs-without-hub")
		b.ReportMetric(float64(hubProcs), "procs-with-hub")
		b.ReportMetric(mb(directRSS), "RSS-MB-without-hub")
		b.ReportMetric(mb(hubRSS), "RSS-MB-with-hub")
		b.ReportMetric(saved, "RSS-saved-%")
		b.ReportMetric(mb(directPSS), "PSS-MB-without-hub")
		b.ReportMetric(mb(hubPSS), "PSS-MB-with-hub")
		b.ReportMetric(savedPSS, "PSS-saved-%")
		b.ReportMetric(mb(ownRSS), "hub-process-RSS-MB")
		b.ReportMetric(mb(bridgeRSS), "bridges-RSS-MB")
		b.ReportMetric(mb(ownPSS+bridgePSS), "hub-and-bridges-PSS-MB")
		b.ReportMetric(savedAll, "PSS-saved-with-hub-and-bridges-%")
		record("mcp-memory", "issue 13: MCP servers of 8 agents x 3 servers, with the hub vs without",
			fmt.Sprintf("%d vs %d processes; RSS %.0f vs %.0f MB (%.1f%% less); PSS %.0f vs %.0f MB (%.1f%% less, %.1f%% counting the hub and 8 bridges)",
				hubProcs, directProcs, mb(hubRSS), mb(directRSS), saved, mb(hubPSS), mb(directPSS), savedPSS, savedAll),
			"3 instead of 24, >= 85% less", memVerdict(hubProcs == 3, saved, savedPSS))
		for _, ss := range bridges {
			ss.Close()
		}
	}
}
