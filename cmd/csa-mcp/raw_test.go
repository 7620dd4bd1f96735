package main

import (
	"bufio"
	"encoding/json"
	"net"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/mcp/hub"
)

// rawClient speaks JSON-RPC to the hub's socket without an SDK, to send
// requests in an exact order.
type rawClient struct {
	c net.Conn
	r *bufio.Reader
}

type rawMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// dialRaw connects, says hello (seeing only the servers in only) and
// initializes.
func dialRaw(t *testing.T, socket string, only ...string) *rawClient {
	t.Helper()
	c, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	r := &rawClient{c: c, r: bufio.NewReaderSize(c, 1<<20)}
	r.write(t, map[string]any{"jsonrpc": "2.0", "method": "csa-hub/hello", "params": hub.Hello{Only: only}})
	r.send(t, 0, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw", "version": "1"}})
	if m := r.next(t); m.Error != nil {
		t.Fatalf("initialize: %+v", m.Error)
	}
	r.write(t, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return r
}

func (r *rawClient) write(t *testing.T, m any) {
	b, _ := json.Marshal(m)
	if _, err := r.c.Write(append(b, '\n')); err != nil {
		t.Error(err)
	}
}

func (r *rawClient) send(t *testing.T, id int, method string, params any) {
	r.write(t, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

// next is the next response (notifications are skipped).
func (r *rawClient) next(t *testing.T) rawMsg {
	t.Helper()
	r.c.SetReadDeadline(time.Now().Add(time.Minute))
	for {
		line, err := r.r.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var m rawMsg
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if m.Method == "" {
			return m
		}
	}
}

// metaSeq is a tools/call's _meta "csa-test/seq".
func metaSeq(t *testing.T, params json.RawMessage) string {
	var p struct {
		Meta map[string]string `json:"_meta"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		t.Fatalf("%v: %s", err, params)
	}
	return p.Meta["csa-test/seq"]
}
