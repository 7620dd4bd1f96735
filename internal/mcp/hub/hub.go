// Package hub is csa's MCP hub: one process per MCP server shared by
// every agent, routing JSON-RPC between many clients and the servers.
// It works at the JSON-RPC level (ids, progress tokens and tool names
// rewritten, nothing else), so what a server says reaches the client as
// the server said it.
package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/csa-dev/csa/internal/config"
)

// hubProtocolVersion is what the hub asks its backends for and offers
// clients that ask for a version it does not know.
const hubProtocolVersion = "2025-11-25"

var knownVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Hub routes many MCP clients to shared backend servers.
type Hub struct {
	src     Source
	logw    io.Writer
	ctx     context.Context
	stop    context.CancelFunc
	done    <-chan struct{}
	gen     atomic.Int64 // bumped whenever a backend's tools may have changed
	started time.Time

	cacheDir string // known tool lists of lazy servers, known.go

	mu       sync.Mutex
	backends map[backendKey]*backend
	clients  map[*client]struct{}
	active   map[*client]struct{} // clients that are agents, not status or stop requests
	progress map[string]progressRoute
	nextTok  int64
	idle     idleTimer
	current  map[string]map[backendKey]bool // by project: the backends its configuration gives now (retire.go)
	sweeping bool                           // the sweep of project-scoped instances runs (scope.go)
}

// backendKey tells backends apart: by name, by project for a
// project-scoped server ("" when shared), and by definition, so that
// projects defining a server differently do not share it.
type backendKey struct{ name, project, def string }

type progressRoute struct {
	cl    *client
	token json.RawMessage
}

// New returns a hub for the servers of cfg; backend output on stderr goes
// to logw.
func New(cfg *Config, logw io.Writer) *Hub { return NewWithSource(Static(cfg), logw) }

// NewWithSource returns a hub whose clients see the servers src gives for
// their project.
func NewWithSource(src Source, logw io.Writer) *Hub {
	ctx, stop := context.WithCancel(context.Background())
	return &Hub{src: src, logw: logw, ctx: ctx, stop: stop, done: ctx.Done(), started: time.Now(),
		backends: map[backendKey]*backend{}, clients: map[*client]struct{}{}, active: map[*client]struct{}{},
		progress: map[string]progressRoute{}}
}

// Done is closed when the hub has been told to stop (Close, the stop
// request, idle exit).
func (h *Hub) Done() <-chan struct{} { return h.done }

// Serve accepts clients until l is closed or the hub is.
func (h *Hub) Serve(l net.Listener) error {
	go func() {
		<-h.done
		l.Close()
	}()
	h.mu.Lock()
	if len(h.active) == 0 {
		h.armIdle()
	}
	h.mu.Unlock()
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

// view is the backends a client sees: every server configured for its
// project or those named in only, per scope (a project) for
// project-scoped ones.
func (h *Hub) view(only []string, project, scope string) ([]*backend, error) {
	servers, err := h.src.Servers(project)
	if err != nil {
		return nil, err
	}
	keys := make(map[string]backendKey, len(servers))
	current := make(map[backendKey]bool, len(servers))
	for n, cfg := range servers {
		key := backendKey{name: n, def: definitionHash(cfg)}
		if cfg.Scope == config.MCPProject {
			key.project = scope
		}
		keys[n], current[key] = key, true
	}
	names := only
	if len(names) == 0 {
		for n := range servers {
			names = append(names, n)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.resolved(project, current) {
		go h.retire()
	}
	if project != "" || scope != "" {
		h.watchProjects()
	}
	var bs []*backend
	for _, n := range names {
		cfg, ok := servers[n]
		if !ok {
			return nil, fmt.Errorf("no MCP server %q is configured for this client (project %q)", n, project)
		}
		key := keys[n]
		b := h.backends[key]
		if b == nil {
			b = newBackend(h, n, key.project, cfg)
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

// BackendStatus is one backend as `status` shows it. The JSON names are
// csa mcp status --json's, kept stable.
type BackendStatus struct {
	Name       string `json:"name"`
	Project    string `json:"project,omitempty"` // "" for a shared server
	Definition string `json:"definition"`        // hash of its configuration: differently defined servers are separate backends
	Transport  string `json:"transport"`         // stdio or http
	// State is running, starting, backoff (waiting to restart after a
	// crash), exited, stopped (idle) or not started.
	State    string `json:"state"`
	PID      int    `json:"pid"` // 0 when not running, and for http
	RSS      int64  `json:"rss_bytes"`
	Clients  int    `json:"clients"` // clients that see it
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

// Status lists the backends created so far, by name and project.
func (h *Hub) Status() []BackendStatus {
	h.mu.Lock()
	keys := make(map[*backend]backendKey, len(h.backends))
	for k, b := range h.backends {
		keys[b] = k
	}
	var cls []*client
	for c := range h.clients {
		cls = append(cls, c)
	}
	h.mu.Unlock()
	var out []BackendStatus
	for b, k := range keys {
		s := b.status()
		s.Definition = k.def
		for _, c := range cls {
			if c.sees(b) {
				s.Clients++
			}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.Name+"\x00"+a.Project+"\x00"+a.Definition < b.Name+"\x00"+b.Project+"\x00"+b.Definition
	})
	return out
}
