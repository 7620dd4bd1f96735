package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/mcp/mcptest"
)

// BenchmarkMCPRouting is issue 13's third figure: 10,000 calls from 8
// clients whose request ids collide (each numbers its calls 1..1250), all
// sent at once, each client writing while it reads. Every answer must come
// back to the client that asked, under the id it used, with the text of its
// own call: a misrouted or lost answer fails the benchmark. The clients
// speak JSON-RPC on the hub's socket directly (no SDK), so nothing but the
// hub could mend a mix-up.
func BenchmarkMCPRouting(b *testing.B) {
	const clients, each = 8, 1250
	everything := requireMCP(b, mcptest.Everything)
	for range b.N {
		w := newWorld(b, "mcp-routing", "")
		h := startMCPHub(b, w, "[servers.everything]\ncommand = "+tomlQuote(everything)+"\n")
		conns := make([]*routingClient, clients)
		for i := range conns {
			conns[i] = dialRouting(b, h.socket)
		}
		var misrouted, lost, answered int
		var mu sync.Mutex
		var wg sync.WaitGroup
		start := time.Now()
		for i, c := range conns {
			wg.Go(func() {
				go func() {
					for id := 1; id <= each; id++ {
						c.send(id, "tools/call", map[string]any{"name": "echo",
							"arguments": map[string]any{"message": fmt.Sprintf("client %d call %d", i, id)}})
					}
					c.w.Flush()
				}()
				seen := map[int]bool{}
				bad := 0
				c.conn.SetReadDeadline(time.Now().Add(2 * time.Minute))
				for len(seen) < each {
					var m struct {
						ID     int             `json:"id"`
						Result json.RawMessage `json:"result"`
						Error  json.RawMessage `json:"error"`
					}
					line, err := c.r.ReadBytes('\n')
					if err != nil {
						break // what is not seen by now is lost
					}
					if json.Unmarshal(line, &m) != nil || m.ID == 0 {
						continue // a notification
					}
					var res struct {
						Content []struct{ Text string } `json:"content"`
					}
					json.Unmarshal(m.Result, &res)
					want := fmt.Sprintf("Echo: client %d call %d", i, m.ID)
					if seen[m.ID] || len(res.Content) != 1 || res.Content[0].Text != want {
						bad++
					}
					seen[m.ID] = true
				}
				mu.Lock()
				misrouted += bad
				lost += each - len(seen)
				answered += len(seen)
				mu.Unlock()
			})
		}
		wg.Wait()
		took := time.Since(start)
		b.ReportMetric(float64(clients*each), "calls")
		b.ReportMetric(float64(misrouted), "misrouted")
		b.ReportMetric(float64(lost), "lost")
		b.ReportMetric(float64(answered)/took.Seconds(), "calls/s")
		record("mcp-routing", "issue 13: 10,000 calls from 8 clients with colliding ids",
			fmt.Sprintf("%d misrouted, %d lost (%.0f calls/s)", misrouted, lost, float64(answered)/took.Seconds()),
			"0 misrouted, 0 lost", verdict(misrouted == 0 && lost == 0))
		if misrouted != 0 || lost != 0 {
			b.Fatalf("%d answers misrouted and %d lost of %d", misrouted, lost, clients*each)
		}
	}
}

// routingClient is a JSON-RPC client on the hub's socket.
type routingClient struct {
	conn net.Conn
	r    *bufio.Reader
	w    *bufio.Writer
}

// dialRouting connects, says the hub's hello and initializes.
func dialRouting(b *testing.B, socket string) *routingClient {
	b.Helper()
	conn, err := net.Dial("unix", socket)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	c := &routingClient{conn: conn, r: bufio.NewReaderSize(conn, 1<<20), w: bufio.NewWriterSize(conn, 64<<10)}
	c.write(map[string]any{"jsonrpc": "2.0", "method": "csa-hub/hello", "params": map[string]any{}})
	c.send(0, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bench", "version": "1"}})
	c.w.Flush()
	conn.SetReadDeadline(time.Now().Add(time.Minute))
	if _, err := c.r.ReadBytes('\n'); err != nil {
		b.Fatalf("initialize: %v", err)
	}
	c.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return c
}

func (c *routingClient) write(m any) {
	line, _ := json.Marshal(m)
	c.w.Write(append(line, '\n'))
}

func (c *routingClient) send(id int, method string, params any) {
	c.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}
