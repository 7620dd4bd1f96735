package mcphub

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
)

// Hello is what `csa-mcp connect` sends before anything else: the servers
// the agent is to see and its project root (for project-scoped servers).
type Hello struct {
	Only    []string `json:"only,omitempty"`
	Project string   `json:"project,omitempty"`
}

const helloMethod = "csa-hub/hello"

// client is one connected agent.
type client struct {
	h   *Hub
	out *outbox

	mu      sync.Mutex
	hello   Hello
	view    []*backend // nil until first needed
	viewErr error
	calls   map[string]*call // in flight, by the client's id
	cat     *catalog
	catGen  int64
}

// ServeConn serves one client until it hangs up.
func (h *Hub) ServeConn(rw io.ReadWriteCloser) {
	cl := &client{h: h, out: newOutbox(rw), calls: map[string]*call{}}
	h.mu.Lock()
	h.clients[cl] = struct{}{}
	h.mu.Unlock()
	defer cl.leave(rw)
	r := newReader(rw)
	for first := true; ; first = false {
		m, err := r.next()
		if rerr, ok := err.(*rpcError); ok {
			cl.out.send(&msg{ID: json.RawMessage("null"), Error: rerr})
			continue
		}
		if err == errTooLong {
			cl.out.send(errorReply(nil, codeInvalidRequest, "message longer than 64 MiB"))
			continue
		}
		if err != nil {
			return
		}
		if first {
			h.joined(cl, m)
		}
		if first && m.Method == helloMethod {
			_ = json.Unmarshal(m.Params, &cl.hello)
			continue
		}
		cl.handle(m)
	}
}

// leave cancels what the client still waits for and forgets it.
func (cl *client) leave(rw io.Closer) {
	h := cl.h
	h.mu.Lock()
	delete(h.clients, cl)
	h.mu.Unlock()
	h.left(cl)
	cl.mu.Lock()
	calls := make([]*call, 0, len(cl.calls))
	for _, c := range cl.calls {
		calls = append(calls, c)
	}
	cl.mu.Unlock()
	for _, c := range calls {
		c.b.cancel(c, json.RawMessage(`"client disconnected"`))
	}
	cl.out.close()
	<-cl.out.done
	rw.Close()
}

func (cl *client) handle(m *msg) {
	switch {
	case m.Method == "": // a response: the hub asks clients nothing
	case m.isNotification():
		if m.Method == "notifications/cancelled" {
			cl.cancelled(m)
		}
	case m.Method == "initialize":
		cl.out.send(cl.initialize(m))
	case m.Method == StatusMethod:
		cl.out.send(resultReply(m.ID, cl.h.Report()))
	case m.Method == StopMethod:
		cl.stopRequested(m)
	case m.Method == "ping":
		cl.out.send(resultReply(m.ID, struct{}{}))
	case m.Method == "tools/list":
		cl.out.send(cl.listTools(m))
	case m.Method == "tools/call":
		if reply := cl.call(m); reply != nil {
			cl.out.send(reply)
		}
	default:
		cl.out.send(errorReply(m.ID, codeMethodNotFound, "csa-mcp hub: method %s not supported", m.Method))
	}
}

// backends is the client's view, fixed on first use.
func (cl *client) backends() ([]*backend, error) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.view == nil && cl.viewErr == nil {
		cl.view, cl.viewErr = cl.h.view(cl.hello.Only, cl.hello.Project)
	}
	return cl.view, cl.viewErr
}

func (cl *client) sees(b *backend) bool {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return slices.Contains(cl.view, b)
}

// initialize starts the client's backends (once each, shared) and answers
// from their cached initialize results. The hub offers tools only, so the
// merged capabilities are tools with listChanged; the servers'
// instructions are joined under their names.
func (cl *client) initialize(m *msg) *msg {
	bs, err := cl.backends()
	if err != nil {
		return errorReply(m.ID, codeInvalidParams, "%v", err)
	}
	var wg sync.WaitGroup
	for _, b := range bs {
		wg.Go(func() {
			if _, err := b.ensure(cl.h.ctx); err != nil {
				fmt.Fprintf(cl.h.logw, "csa-mcp hub: %s: %v\n", b.label(), err)
			}
		})
	}
	wg.Wait()
	var req struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(m.Params, &req)
	version := hubProtocolVersion
	if slices.Contains(knownVersions, req.ProtocolVersion) {
		version = req.ProtocolVersion
	}
	var instructions []string
	for _, b := range bs {
		b.mu.Lock()
		init := b.init
		b.mu.Unlock()
		var res struct {
			Instructions string `json:"instructions"`
		}
		if json.Unmarshal(init, &res) == nil && res.Instructions != "" {
			instructions = append(instructions, b.name+": "+res.Instructions)
		}
	}
	result := map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{"tools": map[string]any{"listChanged": true}},
		"serverInfo":      map[string]any{"name": "csa-mcp-hub", "version": "1"},
	}
	if len(instructions) > 0 {
		result["instructions"] = strings.Join(instructions, "\n\n")
	}
	return resultReply(m.ID, result)
}

// catalog is the client's tool catalog, rebuilt when a backend's tools
// may have changed.
func (cl *client) catalog() (*catalog, error) {
	bs, err := cl.backends()
	if err != nil {
		return nil, err
	}
	gen := cl.h.gen.Load()
	cl.mu.Lock()
	cat, ok := cl.cat, cl.cat != nil && cl.catGen == gen
	cl.mu.Unlock()
	if ok {
		return cat, nil
	}
	cat, errs := buildCatalog(cl.h.ctx, bs)
	for _, err := range errs {
		fmt.Fprintf(cl.h.logw, "csa-mcp hub: %v\n", err)
	}
	cl.mu.Lock()
	cl.cat, cl.catGen = cat, gen
	cl.mu.Unlock()
	return cat, nil
}

func (cl *client) listTools(m *msg) *msg {
	cat, err := cl.catalog()
	if err != nil {
		return errorReply(m.ID, codeInvalidParams, "%v", err)
	}
	tools := make([]json.RawMessage, 0, len(cat.names))
	for _, n := range cat.names {
		tools = append(tools, cat.tools[n].def)
	}
	return resultReply(m.ID, map[string]any{"tools": tools})
}

// call routes a tools/call to its backend's queue; the reply comes later
// (nil here) unless the call is refused at once.
func (cl *client) call(m *msg) *msg {
	var p map[string]json.RawMessage
	var name string
	if json.Unmarshal(m.Params, &p) != nil || json.Unmarshal(p["name"], &name) != nil {
		return errorReply(m.ID, codeInvalidParams, "tools/call needs params.name")
	}
	cat, err := cl.catalog()
	if err != nil {
		return errorReply(m.ID, codeInvalidParams, "%v", err)
	}
	e, ok := cat.tools[name]
	if !ok {
		return errorReply(m.ID, codeInvalidParams, "unknown tool %q", name)
	}
	c := &call{cl: cl, id: m.ID, b: e.b}
	p["name"], _ = json.Marshal(e.tool)
	var meta map[string]json.RawMessage
	if json.Unmarshal(p["_meta"], &meta) == nil && len(meta["progressToken"]) > 0 {
		c.token = cl.h.progressToken(cl, meta["progressToken"])
		meta["progressToken"], _ = json.Marshal(c.token)
		p["_meta"], _ = json.Marshal(meta)
	}
	c.params, _ = json.Marshal(p)
	key := string(m.ID)
	cl.mu.Lock()
	_, dup := cl.calls[key]
	if !dup {
		cl.calls[key] = c
	}
	cl.mu.Unlock()
	if dup {
		cl.h.dropProgress(c.token)
		return errorReply(m.ID, codeInvalidRequest, "request id %s is already in use", key)
	}
	if err := e.b.enqueue(c); err != nil {
		cl.forget(c)
		cl.h.dropProgress(c.token)
		return errorReply(m.ID, codeBackend, "%v", err)
	}
	return nil
}

func (cl *client) forget(c *call) {
	cl.mu.Lock()
	if cl.calls[string(c.id)] == c {
		delete(cl.calls, string(c.id))
	}
	cl.mu.Unlock()
}

// cancelled passes the client's cancellation to the call's backend.
func (cl *client) cancelled(m *msg) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    json.RawMessage `json:"reason"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return
	}
	cl.mu.Lock()
	c := cl.calls[string(p.RequestID)]
	cl.mu.Unlock()
	if c != nil {
		c.b.cancel(c, p.Reason)
	}
}
