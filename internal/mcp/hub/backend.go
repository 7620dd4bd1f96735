package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/jsonrpc"
)

// Restart backoff after a backend dies: 100 ms, doubling to 30 s, back to
// 100 ms once a call succeeds.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 30 * time.Second
)

// backend is one MCP server shared by every client in its scope: a process
// started on first need (and again after it dies or idles out), or a
// session with a streamable HTTP server.
type backend struct {
	name, project string
	cfg           ServerConfig
	hub           *Hub

	startMu sync.Mutex // one start at a time

	mu          sync.Mutex
	conn        *bconn                      // nil until started and after it ends
	closing     *bconn                      // being stopped for the hub's shutdown
	init        json.RawMessage             // initialize result, kept after the instance ends
	isCSA       bool                        // csa's own MCP server: tools/call gets the Caller (caller.go)
	lists                                   // tools and prompts, lists.go
	subs        map[string]map[*client]bool // resource subscriptions by URI
	backoff     time.Duration
	notBefore   time.Time
	nextID      int64
	state       string // why conn is nil: stateNew, stateIdle, stateExited
	layer       string // the resource layer of the last start ("" without limits)
	starts      int
	restarts    int // after the instance died, not after an idle stop
	idleStops   int
	reinits     int // HTTP sessions renewed after the server forgot one
	calls       int
	errors      int
	lastUse     time.Time
	idleTimer   *time.Timer
	unseenSince time.Time // project-scoped: since when no client sees it (scope.go)
	dispatch              // the FIFO of calls, dispatch.go
}

// States of a backend as status shows them. The last three say why it
// has no running instance.
const (
	StateRunning  = "running"        // up and initialised
	StateStarting = "starting"       // being started
	StateBackoff  = "backoff"        // crashed; not restarted before its backoff ends
	stateNew      = "not started"    // not needed yet
	stateIdle     = "stopped (idle)" // stopped after idle_ttl
	stateExited   = "exited"         // crashed, its backoff over: started at the next need
)

// bconn is one running instance of a backend and its pending requests.
type bconn struct {
	link    link
	pending map[int64]func(*msg) // by hub-assigned id; nil once ended
	gone    chan struct{}        // closed once the instance is gone, cleanup done
}

// link is how the hub reaches one running instance: a process on stdio
// (link_stdio.go) or a streamable HTTP session (link_http.go). Whatever
// the instance sends goes to backend.handle; its end to backend.ended,
// after which the link cleans up and closes bconn.gone.
type link interface {
	// handshake initialises the instance and returns its initialize result.
	handshake(ctx context.Context) (json.RawMessage, error)
	send(m *msg)
	pid() int // 0 for HTTP
	// stop ends the instance, politely within grace; kill at once.
	stop(grace time.Duration)
	kill()
}

func newBackend(h *Hub, name, project string, cfg ServerConfig) *backend {
	b := &backend{name: name, project: project, cfg: cfg, hub: h, backoff: minBackoff,
		state: stateNew, subs: map[string]map[*client]bool{}}
	b.dispatch.init(cfg)
	if cfg.Lazy {
		b.loadKnown()
	}
	go b.pump()
	return b
}

func (b *backend) label() string {
	if b.project != "" {
		return b.name + "@" + b.project
	}
	return b.name
}

// initParams is the hub's initialize request to every backend.
var initParams = json.RawMessage(`{"protocolVersion":"` + hubProtocolVersion +
	`","capabilities":{"roots":{}},"clientInfo":{"name":"csa-mcp-hub","version":"1"}}`)

// ensure returns the running instance, starting and initialising it first
// if need be, no sooner than the backoff allows.
func (b *backend) ensure(ctx context.Context) (*bconn, error) {
	b.startMu.Lock()
	defer b.startMu.Unlock()
	b.mu.Lock()
	c, wait := b.conn, time.Until(b.notBefore)
	if c != nil {
		b.lastUse = time.Now()
	}
	b.mu.Unlock()
	if c != nil {
		return c, nil
	}
	if wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
	c = &bconn{pending: map[int64]func(*msg){}, gone: make(chan struct{})}
	var err error
	if b.cfg.URL != "" {
		c.link = newHTTPLink(b, c)
	} else {
		c.link, err = b.startProcess(c)
	}
	if err != nil {
		b.mu.Lock()
		b.died()
		b.mu.Unlock()
		return nil, err
	}
	ictx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	res, err := c.link.handshake(ictx)
	if err != nil {
		c.link.kill()
		b.mu.Lock()
		b.died()
		b.mu.Unlock()
		return nil, fmt.Errorf("initialize %s: %w", b.label(), err)
	}
	b.mu.Lock()
	b.conn, b.init, b.isCSA = c, res, serverName(res) == CSAServerName
	b.starts++
	b.lastUse = time.Now()
	b.forgetLive()
	subs := b.subscribed()
	b.mu.Unlock()
	b.armIdle()
	b.hub.gen.Add(1)
	b.resubscribe(c, subs)
	return c, nil
}

// ended is called once an instance is over: a process that exited (why
// says how) or an HTTP session that was stopped. Every call still pending
// on it fails; a death the hub did not ask for is a crash, restarted with
// backoff at the next need.
func (b *backend) ended(c *bconn, why string) {
	b.mu.Lock()
	pending := c.pending
	c.pending = nil
	crashed := b.conn == c
	if crashed {
		b.conn = nil
		b.state = stateExited
		b.forgetLive()
		b.died()
		b.restarts++
	}
	b.mu.Unlock()
	if crashed {
		b.hub.gen.Add(1)
		fmt.Fprintf(b.hub.logw, "csa-mcp hub: %s %s; it will be restarted when needed\n", b.label(), why)
	}
	for _, done := range pending {
		done(errorReply(nil, codeBackend, "MCP server %s %s during the call; it will be restarted", b.label(), why))
	}
}

// died schedules the next start (b.mu held).
func (b *backend) died() {
	b.notBefore = time.Now().Add(b.backoff)
	b.backoff = min(2*b.backoff, maxBackoff)
}

// handle routes one message from the backend.
func (b *backend) handle(c *bconn, m *msg) {
	switch {
	case m.Method == "":
		var id int64
		if json.Unmarshal(m.ID, &id) != nil {
			return
		}
		b.mu.Lock()
		done := c.pending[id]
		delete(c.pending, id)
		b.mu.Unlock()
		if done != nil {
			done(m)
		}
		b.touch()
	case m.IsRequest():
		c.link.send(b.answer(m))
	case m.Method == "notifications/tools/list_changed":
		b.listChanged(kindTools)
	case m.Method == "notifications/prompts/list_changed":
		b.listChanged(kindPrompts)
	case m.Method == "notifications/resources/list_changed":
		b.hub.fanOut(b, m.Method, nil)
	case m.Method == "notifications/resources/updated":
		b.resourceUpdated(m)
	case m.Method == "notifications/progress":
		b.hub.routeProgress(m)
	}
}

// answer replies to the backend's own requests: no single client owns the
// backend, so sampling and elicitation are refused; roots are none.
func (b *backend) answer(m *msg) *msg {
	switch m.Method {
	case "ping":
		return resultReply(m.ID, struct{}{})
	case "roots/list":
		return resultReply(m.ID, map[string]any{"roots": []any{}})
	}
	return errorReply(m.ID, jsonrpc.CodeMethodNotFound, "csa-mcp hub: %s is not available to shared MCP servers", m.Method)
}

// register sends a request to c and calls done with its reply (or an
// error if the instance ends first). It returns the hub-assigned id.
func (b *backend) register(c *bconn, method string, params json.RawMessage, done func(*msg)) int64 {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	alive := c.pending != nil
	if alive {
		c.pending[id] = done
		b.lastUse = time.Now()
	}
	b.mu.Unlock()
	if !alive {
		done(errorReply(nil, codeBackend, "MCP server %s exited; it will be restarted", b.label()))
		return id
	}
	c.link.send(&msg{ID: json.RawMessage(fmt.Sprint(id)), Method: method, Params: params})
	return id
}

// failed answers a request the transport could not deliver (HTTP).
func (b *backend) failed(c *bconn, id json.RawMessage, err error) {
	var n int64
	if json.Unmarshal(id, &n) != nil {
		return
	}
	b.mu.Lock()
	done := c.pending[n]
	delete(c.pending, n)
	b.mu.Unlock()
	if done != nil {
		done(errorReply(nil, codeBackend, "MCP server %s: %v", b.label(), err))
	}
}

// roundTrip is a request the hub itself makes (tools/list and the like).
func (b *backend) roundTrip(ctx context.Context, c *bconn, method string, params any) (json.RawMessage, error) {
	raw, ok := params.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(params); err != nil {
			return nil, err
		}
	}
	ch := make(chan *msg, 1)
	id := b.register(c, method, raw, func(m *msg) { ch <- m })
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	case <-ctx.Done():
		b.mu.Lock()
		if c.pending != nil {
			delete(c.pending, id)
		}
		b.mu.Unlock()
		c.link.send(notification("notifications/cancelled", map[string]any{"requestId": id, "reason": ctx.Err().Error()}))
		return nil, ctx.Err()
	}
}

// stop ends the running instance, for the hub's shutdown; a second stop
// waits for the first.
func (b *backend) stop() {
	b.mu.Lock()
	c, mine := b.conn, b.conn != nil
	if mine {
		b.conn, b.closing = nil, c
		b.state = stateExited
	} else {
		c = b.closing
	}
	if b.idleTimer != nil {
		b.idleTimer.Stop()
	}
	b.mu.Unlock()
	if mine {
		c.link.stop(2 * time.Second)
	}
	if c != nil {
		<-c.gone
	}
}
