// Package mcphub is csa's MCP hub: one process per MCP server shared by
// every agent, routing JSON-RPC between many clients and the servers.
// It works at the JSON-RPC level (ids, progress tokens and tool names
// rewritten, nothing else), so what a server says reaches the client as
// the server said it.
package mcphub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
)

// hubProtocolVersion is what the hub asks its backends for and offers
// clients that ask for a version it does not know.
const hubProtocolVersion = "2025-11-25"

var knownVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Hub routes many MCP clients to shared backend servers.
type Hub struct {
	cfg  *Config
	logw io.Writer
	ctx  context.Context
	stop context.CancelFunc
	done <-chan struct{}
	gen  atomic.Int64 // bumped whenever a backend's tools or prompts may have changed

	cacheDir string // known tool lists of lazy servers, known.go

	mu       sync.Mutex
	backends map[[2]string]*backend // by name and project ("" when shared)
	clients  map[*client]struct{}
	progress map[string]progressRoute
	nextTok  int64
}

type progressRoute struct {
	cl    *client
	token json.RawMessage
}

// New returns a hub for cfg; backend output on stderr goes to logw.
func New(cfg *Config, logw io.Writer) *Hub {
	ctx, stop := context.WithCancel(context.Background())
	return &Hub{cfg: cfg, logw: logw, ctx: ctx, stop: stop, done: ctx.Done(),
		backends: map[[2]string]*backend{}, clients: map[*client]struct{}{}, progress: map[string]progressRoute{}}
}

// Listen makes socket's directory private (0700) and listens there,
// replacing a socket no hub answers on.
func Listen(socket string) (net.Listener, error) {
	dir := filepath.Dir(socket)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, err
	}
	if c, err := net.Dial("unix", socket); err == nil {
		c.Close()
		return nil, fmt.Errorf("a hub is already listening on %s", socket)
	}
	_ = os.Remove(socket)
	return net.Listen("unix", socket)
}

// Serve accepts clients until l is closed or the hub is.
func (h *Hub) Serve(l net.Listener) error {
	go func() {
		<-h.done
		l.Close()
	}()
	for {
		c, err := l.Accept()
		if err != nil {
			if h.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		go h.ServeConn(c)
	}
}

// Close stops serving and stops every backend process.
func (h *Hub) Close() {
	h.stop()
	h.mu.Lock()
	bs := make([]*backend, 0, len(h.backends))
	for _, b := range h.backends {
		bs = append(bs, b)
	}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, b := range bs {
		wg.Go(b.stop)
	}
	wg.Wait()
}

// view is the backends a client sees: every configured server or those
// named in only, per project for project-scoped ones.
func (h *Hub) view(only []string, project string) ([]*backend, error) {
	names := only
	if len(names) == 0 {
		for n := range h.cfg.Servers {
			names = append(names, n)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var bs []*backend
	for _, n := range names {
		cfg, ok := h.cfg.Servers[n]
		if !ok {
			return nil, fmt.Errorf("no MCP server %q in the hub's config", n)
		}
		key := [2]string{n, ""}
		if cfg.Scope == "project" {
			key[1] = project
		}
		b := h.backends[key]
		if b == nil {
			b = newBackend(h, n, key[1], cfg)
			h.backends[key] = b
		}
		bs = append(bs, b)
	}
	return sortedBackends(bs), nil
}

// progressToken gives a call a token unique in the hub, as two clients'
// tokens may be equal.
func (h *Hub) progressToken(cl *client, token json.RawMessage) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.nextTok++
	t := fmt.Sprintf("csa-hub-%d", h.nextTok)
	h.progress[t] = progressRoute{cl, token}
	return t
}

func (h *Hub) dropProgress(t string) {
	h.mu.Lock()
	delete(h.progress, t)
	h.mu.Unlock()
}

// routeProgress sends a backend's progress notification to the client
// whose call it is about, with the client's own token.
func (h *Hub) routeProgress(m *msg) {
	var p map[string]json.RawMessage
	var t string
	if json.Unmarshal(m.Params, &p) != nil || json.Unmarshal(p["progressToken"], &t) != nil {
		return
	}
	h.mu.Lock()
	r, ok := h.progress[t]
	h.mu.Unlock()
	if !ok {
		return
	}
	p["progressToken"] = r.token
	params, _ := json.Marshal(p)
	r.cl.out.send(&msg{Method: m.Method, Params: params})
}

// BackendStatus is one backend as `status` shows it.
type BackendStatus struct {
	Name      string `json:"name"`
	Project   string `json:"project,omitempty"`
	Transport string `json:"transport"` // stdio or http
	// State is running, starting, backoff (waiting to restart after a
	// crash), exited, stopped (idle) or not started.
	State    string `json:"state"`
	PID      int    `json:"pid"` // 0 when not running, and for http
	RSS      int64  `json:"rss_bytes"`
	InFlight int    `json:"in_flight"`
	Queued   int    `json:"queued"`
	Calls    int    `json:"calls"`
	Errors   int    `json:"errors"`
	Restarts int    `json:"restarts"` // after crashes
	// Starts counts every start; IdleStops the stops after idle_ttl;
	// Reinits the HTTP sessions renewed after the server forgot one.
	Starts    int `json:"starts"`
	IdleStops int `json:"idle_stops"`
	Reinits   int `json:"reinits"`
	// Sandbox is the resource layer enforcing memory_max_mb and
	// pids_max (cgroup1, cgroup2, systemd, setrlimit, none).
	Sandbox string `json:"sandbox,omitempty"`
}

// Status lists the backends started so far, by name.
func (h *Hub) Status() []BackendStatus {
	h.mu.Lock()
	bs := make([]*backend, 0, len(h.backends))
	for _, b := range h.backends {
		bs = append(bs, b)
	}
	h.mu.Unlock()
	var out []BackendStatus
	for _, b := range bs {
		out = append(out, b.status())
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Name+"\x00"+out[i].Project < out[j].Name+"\x00"+out[j].Project
	})
	return out
}
