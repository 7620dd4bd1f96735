package hub

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpMCP is a real streamable HTTP MCP server (the go-sdk's handler) on
// 127.0.0.1 that records what reaches it, and can be restarted on the
// same address with none of its sessions.
type httpMCP struct {
	t    testing.TB
	addr string
	opts *mcp.StreamableHTTPOptions

	mu        sync.Mutex
	srv       *http.Server
	requests  int
	auth      []string // Authorization of every request
	notFound  int      // 404 answers
	inits     int      // POSTs without a session: initialize
	getStream int      // GET streams opened
	changed   chan struct{}
}

func startHTTP(t testing.TB, opts *mcp.StreamableHTTPOptions) *httpMCP {
	s := &httpMCP{t: t, opts: opts, changed: make(chan struct{}, 1)}
	s.listen("127.0.0.1:0")
	t.Cleanup(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.srv.Close()
	})
	return s
}

func (s *httpMCP) url() string { return "http://" + s.addr + "/mcp" }

func (s *httpMCP) listen(addr string) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		s.t.Fatal(err)
	}
	s.addr = l.Addr().String()
	server := testServer("web", "", false)
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, s.opts)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests++
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			s.inits++
		}
		s.mu.Unlock()
		mcpHandler.ServeHTTP(&recorder{ResponseWriter: w, s: s, get: r.Method == http.MethodGet}, r)
	})}
	s.srv = srv
	go srv.Serve(l)
}

// restart stops the server (its connections and sessions gone) and
// starts a new one on the same address.
func (s *httpMCP) restart() {
	s.mu.Lock()
	s.srv.Close()
	s.mu.Unlock()
	s.listen(s.addr)
}

func (s *httpMCP) snapshot() (requests, notFound, inits, gets int, auth []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, s.notFound, s.inits, s.getStream, slices.Clone(s.auth)
}

// recorder notes the status of each answer.
type recorder struct {
	http.ResponseWriter
	s   *httpMCP
	get bool
}

func (r *recorder) WriteHeader(code int) {
	r.s.mu.Lock()
	if code == http.StatusNotFound {
		r.s.notFound++
	}
	if r.get && code == http.StatusOK {
		r.s.getStream++
		select {
		case r.s.changed <- struct{}{}:
		default:
		}
	}
	r.s.mu.Unlock()
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// waitFor polls cond (a cheap read of state) until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A streamable HTTP server behind the hub, answering with SSE streams
// (the go-sdk's default) or plain JSON: calls work, headers reach the
// server with every request, progress comes back, list_changed arrives on
// the GET stream, and after the server restarts (its sessions gone) the
// next call works: the hub opens a new session and sends the call again.
func TestHTTPBackend(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts *mcp.StreamableHTTPOptions
	}{{"sse", nil}, {"json", &mcp.StreamableHTTPOptions{JSONResponse: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			srv := startHTTP(t, mode.opts)
			h, socket := startHub(t, map[string]ServerConfig{
				"web": {URL: srv.url(), Headers: map[string]string{"Authorization": "Bearer s3cret"}},
			})
			changed := make(chan struct{}, 8)
			progress := make(chan struct{}, 8)
			cs := connect(t, socket, Hello{}, &mcp.ClientOptions{
				ToolListChangedHandler:      func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
				ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progress <- struct{}{} },
			})
			if got := mustCall(t, cs, "echo", args{Text: "one"}); got != "web:one" {
				t.Fatalf("echo = %q", got)
			}

			// Progress, then the answer. A server answering in plain JSON
			// sends progress on the GET stream: wait until the hub has it
			// open, or the server drops the progress it has no stream for.
			waitFor(t, "the hub's GET stream", func() bool { _, _, _, gets, _ := srv.snapshot(); return gets > 0 })
			file := filepath.Join(t.TempDir(), "go")
			// On a failure below, the slow call must still end, or closing
			// the client (a cleanup registered before this one) waits for it.
			t.Cleanup(func() { os.WriteFile(file, nil, 0o600) })
			done := make(chan error, 1)
			go func() {
				p := &mcp.CallToolParams{Name: "slow", Arguments: args{File: file}}
				p.SetProgressToken("p1")
				_, err := cs.CallTool(context.Background(), p)
				done <- err
			}()
			select {
			case <-progress:
			case <-time.After(30 * time.Second):
				t.Fatal("no progress from the HTTP server")
			}
			if err := os.WriteFile(file, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatalf("slow: %v", err)
			}

			// list_changed on the GET stream.
			mustCall(t, cs, "addtool", args{Text: "fresh"})
			select {
			case <-changed:
			case <-time.After(30 * time.Second):
				t.Fatal("no tools/list_changed from the HTTP server")
			}
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(res.Tools, func(tl *mcp.Tool) bool { return tl.Name == "fresh" }) {
				t.Fatal("the new tool is not listed")
			}

			// The server restarts: every session is gone.
			_, _, initsBefore, _, _ := srv.snapshot()
			srv.restart()
			if got := mustCall(t, cs, "echo", args{Text: "two"}); got != "web:two" {
				t.Fatalf("echo after restart = %q", got)
			}
			requests, notFound, inits, _, auth := srv.snapshot()
			if notFound == 0 || inits != initsBefore+1 {
				t.Fatalf("after the restart: %d answers 404, %d initializes (before %d): want the stale session renewed once", notFound, inits, initsBefore)
			}
			for i, a := range auth {
				if a != "Bearer s3cret" {
					t.Fatalf("request %d of %d came with Authorization %q", i, requests, a)
				}
			}
			st := h.Status()
			if len(st) != 1 || st[0].Transport != "http" || st[0].State != "running" || st[0].Reinits != 1 ||
				st[0].Restarts != 0 || st[0].Errors != 0 || st[0].Calls != 4 {
				t.Fatalf("status %+v", st)
			}
		})
	}
}
