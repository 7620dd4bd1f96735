package hub

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/mcp/mcptest"
	"github.com/csa-dev/csa/internal/proc"
)

// everythingHTTP runs the pinned npm server-everything as a streamable
// HTTP server on port; stop ends it.
func everythingHTTP(t *testing.T, bin string, port int) (stop func()) {
	t.Helper()
	p, err := proc.Start(proc.Spec{Path: bin, Args: []string{"streamableHttp"}, Env: append(os.Environ(), fmt.Sprintf("PORT=%d", port)),
		Stdout: testLog{t}, Stderr: testLog{t}, DieWithParent: true})
	if err != nil {
		t.Fatal(err)
	}
	stop = func() { p.Terminate(5 * time.Second) }
	t.Cleanup(stop)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return stop
		}
		select {
		case <-p.Done():
			t.Fatalf("server-everything exited: %v", p.Wait())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything not listening on %s after 60 s", addr)
		}
	}
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// The npm server-everything over streamable HTTP behind the hub; it
// restarts (a new process: every session gone) and the next call works.
func TestHTTPEverything(t *testing.T) {
	bin := mcptest.Require(t, mcptest.Everything)
	port := freePort(t)
	stop := everythingHTTP(t, bin, port)
	h, socket := startHub(t, map[string]ServerConfig{"everything": {URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port)}})
	cs := connect(t, socket, Hello{}, nil)
	sum := func(a, b int) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-sum", Arguments: map[string]any{"a": a, "b": b}})
		if err != nil || res.IsError || len(res.Content) == 0 {
			t.Fatalf("get-sum: %v %+v", err, res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	if got := sum(2, 3); !strings.Contains(got, "5") {
		t.Fatalf("get-sum(2, 3) = %q", got)
	}
	stop()
	everythingHTTP(t, bin, port)
	if got := sum(40, 2); !strings.Contains(got, "42") {
		t.Fatalf("get-sum(40, 2) after the restart = %q", got)
	}
	if st := status1(t, h); st.Reinits != 1 || st.Errors != 0 || st.Restarts != 0 {
		t.Fatalf("status %+v: want the session renewed once, no error", st)
	}
}
