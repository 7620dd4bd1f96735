package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/mcp/hub"
	"github.com/csa-dev/csa/internal/mcp/mcptest"
	"github.com/csa-dev/csa/internal/proc"
)

// The MCP hub (issue 13) with real servers from npm (make mcp-servers):
// mcp_memory_test.go, mcp_latency_test.go, mcp_routing_test.go.

// mcpHub is a `csa-mcp hub` process of a benchmark.
type mcpHub struct {
	socket string
	cmd    *exec.Cmd
	env    []string
}

// startMCPHub runs the hub with conf, its socket in a short directory
// (socket paths are limited to 108 bytes), until the benchmark ends.
func startMCPHub(b *testing.B, w *world, conf string) *mcpHub {
	b.Helper()
	dir, err := os.MkdirTemp("", "hub")
	if err != nil {
		b.Fatal(err)
	}
	h := &mcpHub{socket: filepath.Join(dir, "run", "hub.sock"), env: w.env}
	cfg := filepath.Join(dir, "hub.toml")
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		b.Fatal(err)
	}
	h.cmd = exec.Command(mcpBin, "hub", "--socket", h.socket, "--config", cfg)
	h.cmd.Env, h.cmd.Stderr = w.env, w.stderr
	if err := h.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- h.cmd.Wait() }()
	b.Cleanup(func() {
		h.cmd.Process.Kill()
		<-exited
		os.RemoveAll(dir)
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := net.Dial("unix", h.socket); err == nil {
			c.Close()
			return h
		}
		select {
		case err := <-exited:
			exited <- err
			b.Fatalf("csa-mcp hub exited: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			b.Fatal("csa-mcp hub not listening after 30 s")
		}
	}
}

func (h *mcpHub) report(b *testing.B) *hub.Report {
	b.Helper()
	r, err := hub.AskStatus(h.socket, 10*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// mcpSession is an MCP client over a command's stdio: a server itself
// (direct) or `csa-mcp connect` (through the hub).
type mcpSession struct {
	*mcp.ClientSession
	cmd *exec.Cmd
}

func startSession(b *testing.B, w *world, path string, args ...string) *mcpSession {
	b.Helper()
	cmd := exec.Command(path, args...)
	cmd.Dir, cmd.Env, cmd.Stderr = w.projDir, w.env, w.stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-agent", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		b.Fatalf("%s %q: %v", path, args, err)
	}
	b.Cleanup(func() { cs.Close() })
	return &mcpSession{cs, cmd}
}

// call calls a tool and fails the benchmark on any error.
func (s *mcpSession) call(b *testing.B, tool string, args map[string]any) string {
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		b.Fatalf("%s: %v", tool, err)
	}
	if res.IsError || len(res.Content) == 0 {
		b.Fatalf("%s: error result %+v", tool, res.Content)
	}
	tc, _ := res.Content[0].(*mcp.TextContent)
	if tc == nil {
		b.Fatalf("%s: no text in %+v", tool, res.Content)
	}
	return tc.Text
}

// treeMem is the memory of pid and all its descendants: resident (RSS)
// and proportional (PSS: each page shared by n processes counted 1/n, so
// the text of a binary many of them run is counted once in all).
func treeMem(pid int) (rss, pss int64, procs int) {
	proc.WalkTree(pid, func(p int) {
		if r, ok := proc.RSS(p); ok {
			rss += r
			pss += pssOf(p)
			procs++
		}
	})
	return rss, pss, procs
}

// pssOf reads a process's PSS from /proc/PID/smaps_rollup (0 if gone).
func pssOf(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "Pss:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// requireMCP is the pinned npm server name, or the benchmark fails saying
// how to install it.
func requireMCP(b *testing.B, name string) string {
	b.Helper()
	return mcptest.Require(b, name)
}

func tomlQuote(s string) string {
	q, _ := json.Marshal(s) // a TOML basic string for paths and words
	return string(q)
}

func pctLess(with, without int64) float64 {
	return 100 * (1 - float64(with)/float64(without))
}
