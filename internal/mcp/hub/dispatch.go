package hub

import (
	"encoding/json"
	"fmt"
	"time"
)

// dispatch is a backend's call queue. Calls take a slot when one is free
// (concurrency = 0: always), else wait first-in first-out in a bounded
// queue. Slots are taken in the order calls arrive, under the backend's
// lock, so the order is the arrival order even though sending happens in
// the pump goroutine.
type dispatch struct {
	limit, queueMax int
	inflight        int
	waiting         []*call // no slot yet, FIFO
	ready           []*call // slot taken, not yet sent, FIFO
	kick            chan struct{}
	forgotten       chan struct{} // closed once the hub has forgotten the backend: its pump ends
}

func (d *dispatch) init(cfg ServerConfig) {
	d.limit, d.queueMax = cfg.Concurrency, cfg.QueueMax()
	d.kick = make(chan struct{}, 1)
	d.forgotten = make(chan struct{})
}

// call is one client's request on its way to a backend: tools/call,
// prompts/get or resources/read.
type call struct {
	cl      *client
	b       *backend
	method  string
	id      json.RawMessage // the client's id
	params  json.RawMessage // tool name and progress token rewritten
	token   string          // hub progress token, "" if none
	conn    *bconn          // set once sent (backend lock)
	hubID   int64
	dropped bool // cancelled before it was sent (or while)
}

func (b *backend) wake() {
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// enqueue admits a call or refuses it when the queue is full.
func (b *backend) enqueue(c *call) error {
	b.mu.Lock()
	switch {
	case b.limit == 0 || b.inflight < b.limit:
		b.inflight++
		b.ready = append(b.ready, c)
	case len(b.waiting) >= b.queueMax:
		b.mu.Unlock()
		return fmt.Errorf("MCP server %s is busy: %d calls in flight and %d queued (the limit); try again later",
			b.label(), b.inflight, len(b.waiting))
	default:
		b.waiting = append(b.waiting, c)
	}
	b.mu.Unlock()
	b.wake()
	return nil
}

// release frees a call's slot, handing it to the longest waiting call.
func (b *backend) release() {
	b.mu.Lock()
	if len(b.waiting) > 0 {
		b.ready = append(b.ready, b.waiting[0])
		b.waiting = b.waiting[1:]
	} else {
		b.inflight--
	}
	b.mu.Unlock()
	b.wake()
}

// pump sends ready calls, starting the process when needed. Starting (and
// backoff) blocks only this backend's calls.
func (b *backend) pump() {
	for {
		select {
		case <-b.kick:
		case <-b.hub.done:
			return
		case <-b.forgotten:
			return
		}
		for {
			b.mu.Lock()
			if len(b.ready) == 0 {
				b.mu.Unlock()
				break
			}
			c := b.ready[0]
			b.ready = b.ready[1:]
			b.mu.Unlock()
			b.send(c)
		}
	}
}

func (b *backend) send(c *call) {
	b.mu.Lock()
	dropped := c.dropped
	b.mu.Unlock()
	if dropped {
		b.release()
		b.finish(c, nil)
		return
	}
	conn, err := b.ensure(b.hub.ctx)
	if err != nil {
		b.release()
		b.finish(c, errorReply(c.id, codeBackend, "MCP server %s: %v", b.label(), err))
		return
	}
	b.mu.Lock()
	c.conn = conn
	b.calls++
	if b.isCSA {
		c.params = withCaller(c)
	}
	b.mu.Unlock()
	id := b.register(conn, c.method, c.params, func(m *msg) {
		b.release()
		b.mu.Lock()
		if m.Error != nil {
			b.errors++
		} else {
			b.backoff = minBackoff
		}
		b.lastUse = time.Now()
		b.mu.Unlock()
		if c.method == "tools/call" && m.Result != nil {
			c.cl.learnLinks(b, m.Result)
		}
		m.ID = c.id
		b.finish(c, m)
	})
	b.mu.Lock()
	c.hubID = id
	cancelled := c.dropped // while it was being sent
	b.mu.Unlock()
	if cancelled {
		b.cancel(c, nil)
	}
}

// finish delivers a call's reply (none if it was cancelled) and forgets it.
func (b *backend) finish(c *call, reply *msg) {
	c.cl.forget(c)
	if c.token != "" {
		b.hub.dropProgress(c.token)
	}
	if reply != nil {
		c.cl.out.send(reply)
	}
}

// cancel stops a call the client gave up on: dropped from the queue if
// not yet sent, else the cancellation is passed to the backend.
func (b *backend) cancel(c *call, reason json.RawMessage) {
	b.mu.Lock()
	for i, w := range b.waiting {
		if w == c {
			b.waiting = append(b.waiting[:i:i], b.waiting[i+1:]...)
			b.mu.Unlock()
			b.finish(c, nil)
			return
		}
	}
	conn, id := c.conn, c.hubID
	if conn == nil || id == 0 {
		c.dropped = true // the pump drops it
		b.mu.Unlock()
		return
	}
	b.mu.Unlock()
	p := map[string]any{"requestId": id}
	if len(reason) > 0 {
		p["reason"] = reason
	}
	conn.link.send(notification("notifications/cancelled", p))
	// A server need not answer a cancelled request (those built on the
	// TypeScript SDK never do): the call ends here and frees its slot, and
	// a late answer finds nothing pending.
	b.mu.Lock()
	done := conn.pending[id]
	delete(conn.pending, id)
	b.mu.Unlock()
	if done != nil {
		b.release()
		b.finish(c, nil)
	}
}
