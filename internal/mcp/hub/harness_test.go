package hub

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/cli/shim"
	"github.com/csa-dev/csa/internal/resource"
)

func TestMain(m *testing.M) {
	// The hub confines limited servers through its own executable's
	// shim: here, the test binary's.
	if len(os.Args) > 1 && os.Args[1] == resource.ShimCommand {
		fmt.Fprintln(os.Stderr, "shim:", shim.Exec(os.Args[2:]))
		os.Exit(127)
	}
	if os.Getenv("MCPHUB_BACKEND") != "" {
		testBackend()
	}
	os.Exit(m.Run())
}

// server is a test backend's config; env adds MCPHUB_* settings.
func server(t *testing.T, env ...string) ServerConfig {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := ServerConfig{Command: exe, Env: map[string]string{"MCPHUB_BACKEND": "1"}}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		s.Env[k] = v
	}
	return s
}

// startHub serves cfg on a socket in a short temporary directory (socket
// paths are limited to 108 bytes); setup runs before it serves.
func startHub(t *testing.T, servers map[string]ServerConfig, setup ...func(*Hub)) (*Hub, string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "hub")
	if err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "run", "hub.sock")
	l, err := Listen(socket)
	if err != nil {
		t.Fatal(err)
	}
	h := New(&Config{Servers: servers}, testLog{t})
	for _, f := range setup {
		f(h)
	}
	go h.Serve(l)
	t.Cleanup(func() {
		h.Close()
		os.RemoveAll(dir)
	})
	return h, socket
}

type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// dial connects a raw client to the hub, sending hello.
func dial(t *testing.T, socket string, hello Hello) net.Conn {
	t.Helper()
	c, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	h, _ := json.Marshal(hello)
	if _, err := c.Write(encode(&msg{Method: helloMethod, Params: h})); err != nil {
		t.Fatal(err)
	}
	return c
}

// connect is a go-sdk client of the hub.
func connect(t *testing.T, socket string, hello Hello, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c := dial(t, socket, hello)
	cl := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := cl.Connect(ctx, &mcp.IOTransport{Reader: c, Writer: c}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callText(ctx context.Context, cs *mcp.ClientSession, tool string, a args) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: a})
	if err != nil {
		return "", err
	}
	if res.IsError || len(res.Content) != 1 {
		return "", fmt.Errorf("%s: error result %+v", tool, res.Content)
	}
	return res.Content[0].(*mcp.TextContent).Text, nil
}

func mustCall(t *testing.T, cs *mcp.ClientSession, tool string, a args) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := callText(ctx, cs, tool, a)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// raw is a JSON-RPC client without the SDK, to pipeline requests in an
// exact order.
type raw struct {
	c net.Conn
	r *reader
}

func newRaw(t *testing.T, socket string, hello Hello) *raw {
	c := dial(t, socket, hello)
	return &raw{c: c, r: newReader(bufio.NewReader(c))}
}

func (r *raw) call(t *testing.T, id int, tool string, a args) {
	t.Helper()
	p, _ := json.Marshal(map[string]any{"name": tool, "arguments": a})
	if _, err := r.c.Write(encode(&msg{ID: json.RawMessage(fmt.Sprint(id)), Method: "tools/call", Params: p})); err != nil {
		t.Fatal(err)
	}
}

func (r *raw) next(t *testing.T) *msg {
	t.Helper()
	r.c.SetReadDeadline(time.Now().Add(30 * time.Second))
	m, err := r.r.next()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// resultText is the text of a tools/call result.
func resultText(m *msg) string {
	var res struct {
		Content []struct{ Text string } `json:"content"`
	}
	json.Unmarshal(m.Result, &res)
	if len(res.Content) == 0 {
		return ""
	}
	return res.Content[0].Text
}
