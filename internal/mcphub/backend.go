package mcphub

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/csa-dev/csa/internal/proc"
)

// Restart backoff after a backend dies: 100 ms, doubling to 30 s, back to
// 100 ms once a call succeeds.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 30 * time.Second
)

// backend is one MCP server process shared by every client in its scope,
// started on first use and again after it dies.
type backend struct {
	name, project string
	cfg           ServerConfig
	hub           *Hub

	startMu sync.Mutex // one start at a time

	mu        sync.Mutex
	conn      *bconn          // nil until started and after it dies
	init      json.RawMessage // initialize result of the running process
	tools     []json.RawMessage
	toolsOK   bool
	toolsVer  int // bumped by list_changed
	backoff   time.Duration
	notBefore time.Time
	nextID    int64
	restarts  int
	calls     int
	errors    int
	dispatch  // the FIFO of calls, dispatch.go
}

// bconn is one running process of a backend and its pending requests.
type bconn struct {
	p       *proc.Process
	out     *outbox
	pending map[int64]func(*msg) // by hub-assigned id; nil once dead
	gone    chan struct{}        // closed when read has finished
}

func newBackend(h *Hub, name, project string, cfg ServerConfig) *backend {
	b := &backend{name: name, project: project, cfg: cfg, hub: h, backoff: minBackoff}
	b.dispatch.init(cfg)
	go b.pump()
	return b
}

func (b *backend) label() string {
	if b.project != "" {
		return b.name + "@" + b.project
	}
	return b.name
}

// ensure returns the running process, starting and initialising it first
// if need be, no sooner than the backoff allows.
func (b *backend) ensure(ctx context.Context) (*bconn, error) {
	b.startMu.Lock()
	defer b.startMu.Unlock()
	b.mu.Lock()
	c, wait := b.conn, time.Until(b.notBefore)
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
	c, err := b.start()
	if err != nil {
		b.mu.Lock()
		b.died()
		b.mu.Unlock()
		return nil, err
	}
	ictx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	res, err := b.roundTrip(ictx, c, "initialize", map[string]any{
		"protocolVersion": hubProtocolVersion,
		"capabilities":    map[string]any{"roots": map[string]any{}},
		"clientInfo":      map[string]any{"name": "csa-mcp-hub", "version": "1"},
	})
	if err != nil {
		_ = c.p.Signal(syscall.SIGKILL)
		b.mu.Lock()
		b.died()
		b.mu.Unlock()
		return nil, fmt.Errorf("initialize %s: %w", b.label(), err)
	}
	c.out.send(notification("notifications/initialized", nil))
	b.mu.Lock()
	b.conn, b.init, b.tools, b.toolsOK = c, res, nil, false
	b.mu.Unlock()
	b.hub.gen.Add(1)
	return c, nil
}

// start runs the server's command with its stdio on pipes. It goes through
// proc, so the server leads its own process group (killed whole when it
// dies) and dies with the hub.
func (b *backend) start() (*bconn, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	env := os.Environ()
	for k, v := range b.cfg.Env {
		env = append(env, k+"="+v)
	}
	dir := b.cfg.Cwd
	if dir == "" {
		dir = b.project
	}
	p, err := proc.Start(proc.Spec{Path: b.cfg.Command, Args: b.cfg.Args, Env: env, Dir: dir,
		Stdin: inR, Stdout: outW, Stderr: b.hub.logw, DieWithParent: true})
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	c := &bconn{p: p, out: newOutbox(inW), pending: map[int64]func(*msg){}, gone: make(chan struct{})}
	go b.read(c, outR)
	go func() {
		// The group dies with its leader, so that a grandchild holding
		// stdout cannot keep the hub from seeing the end.
		<-p.Done()
		_ = p.Signal(syscall.SIGKILL)
		c.out.close()
		<-c.out.done
		inW.Close()
		select {
		case <-c.gone:
		case <-time.After(500 * time.Millisecond):
			outR.Close()
		}
	}()
	return c, nil
}

// read routes what the process writes until it closes stdout, then fails
// every call still pending on it.
func (b *backend) read(c *bconn, f *os.File) {
	r := newReader(f)
	for {
		m, err := r.next()
		if err == errTooLong {
			fmt.Fprintf(b.hub.logw, "csa-mcp hub: %s: message over 64 MiB dropped\n", b.label())
			continue
		}
		if _, ok := err.(*rpcError); ok {
			continue
		}
		if err != nil {
			break
		}
		b.handle(c, m)
	}
	f.Close()
	_ = c.p.Signal(syscall.SIGKILL)
	b.mu.Lock()
	pending := c.pending
	c.pending = nil
	if b.conn == c {
		b.conn, b.tools, b.toolsOK = nil, nil, false
		b.died()
		b.restarts++
	}
	b.mu.Unlock()
	b.hub.gen.Add(1)
	for _, done := range pending {
		done(errorReply(nil, codeBackend, "MCP server %s exited during the call; it will be restarted", b.label()))
	}
	close(c.gone)
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
	case m.isRequest():
		c.out.send(b.answer(m))
	case m.Method == "notifications/tools/list_changed":
		b.mu.Lock()
		b.tools, b.toolsOK = nil, false
		b.toolsVer++
		b.mu.Unlock()
		b.hub.toolsChanged(b)
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
	return errorReply(m.ID, codeMethodNotFound, "csa-mcp hub: %s is not available to shared MCP servers", m.Method)
}

// register sends a request to c and calls done with its reply (or an
// error if the process dies first). It returns the hub-assigned id.
func (b *backend) register(c *bconn, method string, params json.RawMessage, done func(*msg)) int64 {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	alive := c.pending != nil
	if alive {
		c.pending[id] = done
	}
	b.mu.Unlock()
	if !alive {
		done(errorReply(nil, codeBackend, "MCP server %s exited; it will be restarted", b.label()))
		return id
	}
	c.out.send(&msg{ID: json.RawMessage(fmt.Sprint(id)), Method: method, Params: params})
	return id
}

// roundTrip is a request the hub itself makes (initialize, tools/list).
func (b *backend) roundTrip(ctx context.Context, c *bconn, method string, params any) (json.RawMessage, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
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
		c.out.send(notification("notifications/cancelled", map[string]any{"requestId": id, "reason": ctx.Err().Error()}))
		return nil, ctx.Err()
	}
}

// stop kills the running process, for the hub's shutdown.
func (b *backend) stop() {
	b.mu.Lock()
	c := b.conn
	b.mu.Unlock()
	if c != nil {
		c.p.Terminate(2 * time.Second)
	}
}
