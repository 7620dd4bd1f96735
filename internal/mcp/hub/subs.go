package hub

import (
	"encoding/json"
	"fmt"

	"github.com/csa-dev/csa/internal/jsonrpc"
)

// Resource subscriptions: the hub subscribes a backend to a URI once,
// for all its clients, tells each subscribed client of an update, and
// unsubscribes when the last one leaves. A restarted instance (or a
// renewed HTTP session) is subscribed again.

// subscribe answers resources/subscribe and resources/unsubscribe.
func (cl *client) subscribe(m *msg) *msg {
	on := m.Method == "resources/subscribe"
	uri, b, refused := cl.uriBackend(m)
	if refused != nil {
		return refused
	}
	b.mu.Lock()
	_, can, _ := capsOf(b.init)
	b.mu.Unlock()
	if !can {
		return errorReply(m.ID, jsonrpc.CodeMethodNotFound, "MCP server %s does not offer resource subscriptions", b.label())
	}
	cl.mu.Lock()
	if cl.subs == nil {
		cl.mu.Unlock()
		return errorReply(m.ID, jsonrpc.CodeInvalidRequest, "the client is leaving")
	}
	if on {
		if cl.subs[b] == nil {
			cl.subs[b] = map[string]bool{}
		}
		cl.subs[b][uri] = true
	} else {
		delete(cl.subs[b], uri)
	}
	cl.mu.Unlock()
	if err := b.subscribe(cl, uri, on); err != nil {
		return errorReply(m.ID, codeBackend, "%v", err)
	}
	cl.mu.Lock()
	left := cl.subs == nil
	cl.mu.Unlock()
	if left && on { // it left meanwhile: unsubscribeAll missed this one
		_ = b.subscribe(cl, uri, false)
	}
	return resultReply(m.ID, struct{}{})
}

// subscribe adds (or removes) cl as a subscriber of uri, subscribing the
// backend for the first and unsubscribing it after the last.
func (b *backend) subscribe(cl *client, uri string, on bool) error {
	b.mu.Lock()
	set := b.subs[uri]
	upstream := false
	if on {
		if set == nil {
			set = map[*client]bool{}
			b.subs[uri] = set
		}
		upstream = len(set) == 0
		set[cl] = true
	} else if set[cl] {
		delete(set, cl)
		if len(set) == 0 {
			delete(b.subs, uri)
			upstream = b.conn != nil
		}
	}
	b.mu.Unlock()
	if !upstream {
		return nil
	}
	method := "resources/unsubscribe"
	if on {
		method = "resources/subscribe"
	}
	c, err := b.ensure(b.hub.ctx)
	if err == nil {
		_, err = b.roundTrip(b.hub.ctx, c, method, map[string]string{"uri": uri})
	}
	if err != nil && on {
		b.mu.Lock()
		delete(set, cl)
		if len(b.subs[uri]) == 0 {
			delete(b.subs, uri)
		}
		b.mu.Unlock()
		return fmt.Errorf("MCP server %s: %s: %w", b.label(), method, err)
	}
	return nil
}

// unsubscribeAll drops a leaving client's subscriptions.
func (cl *client) unsubscribeAll() {
	cl.mu.Lock()
	subs := cl.subs
	cl.subs = nil
	cl.mu.Unlock()
	for b, uris := range subs {
		for uri := range uris {
			go b.subscribe(cl, uri, false)
		}
	}
}

// subscribed lists the URIs with subscribers (b.mu held).
func (b *backend) subscribed() []string {
	var uris []string
	for uri, set := range b.subs {
		if len(set) > 0 {
			uris = append(uris, uri)
		}
	}
	return uris
}

// resubscribe subscribes a new instance to what clients still follow.
func (b *backend) resubscribe(c *bconn, uris []string) {
	for _, uri := range uris {
		p, _ := json.Marshal(map[string]string{"uri": uri})
		b.register(c, "resources/subscribe", p, func(*msg) {})
	}
}

// resourceUpdated tells the clients subscribed to the URI.
func (b *backend) resourceUpdated(m *msg) {
	var p struct {
		URI string `json:"uri"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return
	}
	b.mu.Lock()
	var cls []*client
	for cl := range b.subs[p.URI] {
		cls = append(cls, cl)
	}
	b.mu.Unlock()
	for _, cl := range cls {
		cl.out.send(&msg{Method: m.Method, Params: m.Params})
	}
}

// renewed takes a renewed HTTP session's initialize result.
func (b *backend) renewed(c *bconn, res json.RawMessage) {
	b.mu.Lock()
	if b.conn != c {
		b.mu.Unlock()
		return
	}
	b.init = res
	b.reinits++
	b.forgetLive()
	uris := b.subscribed()
	b.mu.Unlock()
	b.hub.gen.Add(1)
	fmt.Fprintf(b.hub.logw, "csa-mcp hub: %s forgot its session; a new one is open\n", b.label())
	b.resubscribe(c, uris)
}

// fanOut sends a notification to every client that sees b.
func (h *Hub) fanOut(b *backend, method string, params any) {
	h.mu.Lock()
	var cls []*client
	for c := range h.clients {
		cls = append(cls, c)
	}
	h.mu.Unlock()
	for _, c := range cls {
		if c.sees(b) {
			c.out.send(notification(method, params))
		}
	}
}
