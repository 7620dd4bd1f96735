// Package appserver is csa-agent's app-server: JSON-RPC 2.0 on stdio in
// the shape of Codex's app-server (v2), so that clients written for Codex
// (IDE extensions) drive csa-agent. A client initializes, starts or
// resumes threads (thread.Host) and runs turns on them; a turn's events
// stream back as Codex's item notifications (items.go), and the calls that
// need a person's permission come to the client as approval requests.
package appserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/csa-dev/csa/internal/csaagent/thread"
	"github.com/csa-dev/csa/internal/jsonrpc"
)

// Options configure a server. The bounds keep a connection's memory
// bounded: beyond MaxRequests or MaxTurns a request is refused with -32001
// (the client retries); a full outgoing queue holds back whatever emits
// (a turn's loop too) until the client reads.
type Options struct {
	Host    thread.Host
	Version string // csa-agent's
	Home    string // csa-agent's state directory, for initialize
	// Skills finds the skills a thread in cwd can use; nil finds none.
	Skills func(cwd string) ([]Skill, []SkillError)

	MaxRequests int // requests handled at once (default 32)
	MaxTurns    int // turns running at once (default 4)
	QueueSize   int // outgoing messages waiting to be written (default 256)
	MaxLine     int // bytes in one incoming line (default 16 MiB)
}

func (o *Options) defaults() {
	if o.MaxRequests <= 0 {
		o.MaxRequests = 32
	}
	if o.MaxTurns <= 0 {
		o.MaxTurns = 4
	}
	if o.QueueSize <= 0 {
		o.QueueSize = 256
	}
	if o.MaxLine <= 0 {
		o.MaxLine = 16 << 20
	}
}

// conn is one client connection.
type conn struct {
	o    Options
	base context.Context // ends at end of input: every turn is interrupted

	out  chan []byte   // lines waiting for the writer
	dead chan struct{} // closed when writing failed: nothing more can be sent
	once sync.Once

	requests chan struct{} // a slot per request in flight
	replies  sync.Mutex    // a request's reply and its follow-up notifications go out together
	turnSlot chan struct{} // a slot per turn running
	turns    sync.WaitGroup
	handlers sync.WaitGroup

	initialized atomic.Bool

	mu      sync.Mutex
	threads map[string]*openThread
	calls   map[int64]chan *jsonrpc.Message // server requests awaiting the client
	nextID  int64
}

// Serve talks JSON-RPC on in and out until in ends; then it interrupts
// every turn, lets them report, closes the threads and returns nil.
func Serve(ctx context.Context, o Options, in io.Reader, out io.Writer) error {
	o.defaults()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := &conn{o: o, base: ctx, out: make(chan []byte, o.QueueSize), dead: make(chan struct{}),
		requests: make(chan struct{}, o.MaxRequests), turnSlot: make(chan struct{}, o.MaxTurns),
		threads: map[string]*openThread{}, calls: map[int64]chan *jsonrpc.Message{}}
	written := make(chan error, 1)
	go func() { written <- c.write(out) }()

	err := c.read(in)
	cancel()
	c.handlers.Wait()
	c.turns.Wait()
	c.mu.Lock()
	for _, t := range c.threads {
		t.th.Close()
	}
	c.mu.Unlock()
	close(c.out)
	if werr := <-written; err == nil {
		err = werr
	}
	return err
}

// write writes queued lines until the queue closes. After a write error
// it keeps draining, so that nothing blocks on a client that is gone.
func (c *conn) write(w io.Writer) error {
	var failed error
	bw := bufio.NewWriter(w)
	for line := range c.out {
		if failed != nil {
			continue
		}
		bw.Write(line)
		if len(c.out) == 0 {
			failed = bw.Flush()
		}
		if failed != nil {
			c.once.Do(func() { close(c.dead) })
		}
	}
	if failed == nil {
		failed = bw.Flush()
	}
	if failed != nil {
		return fmt.Errorf("write to the client: %w", failed)
	}
	return nil
}

// send queues one message, waiting while the queue is full (the
// backpressure a slow client puts on the turns). It gives up only when
// the client can no longer be written to. err is a member of m that could
// not be encoded: the client is told, as for m itself.
func (c *conn) send(m *jsonrpc.Message, err error) {
	var b []byte
	if err == nil {
		b, err = jsonrpc.Encode(m)
	}
	if err != nil {
		b, _ = jsonrpc.Encode(&jsonrpc.Message{ID: jsonrpc.Null(), Error: jsonrpc.Errorf(codeInternal, "encode: %v", err)})
	}
	select {
	case c.out <- b:
	case <-c.dead:
	}
}

func (c *conn) notify(method string, params any) {
	p, err := jsonrpc.Raw(params)
	c.send(&jsonrpc.Message{Method: method, Params: p}, err)
}

func (c *conn) reply(id json.RawMessage, result any, err error) {
	if err != nil {
		e, ok := err.(*jsonrpc.Error)
		if !ok {
			e = jsonrpc.Errorf(codeInternal, "%v", err)
		}
		c.send(&jsonrpc.Message{ID: id, Error: e}, nil)
		return
	}
	if result == nil {
		result = struct{}{}
	}
	r, err := jsonrpc.Raw(result)
	c.send(&jsonrpc.Message{ID: id, Result: r}, err)
}

// read handles incoming lines until the input ends.
func (c *conn) read(in io.Reader) error {
	r := jsonrpc.NewReader(in, c.o.MaxLine)
	null := jsonrpc.Null()
	for {
		line, err := r.Line()
		if err == jsonrpc.ErrTooLong {
			c.reply(null, nil, jsonrpc.Errorf(codeParse, "line longer than %d bytes", c.o.MaxLine))
			continue
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read from the client: %w", err)
		}
		if len(line) == 0 {
			continue
		}
		var m jsonrpc.Message
		if err := json.Unmarshal(line, &m); err != nil {
			c.reply(null, nil, jsonrpc.Errorf(codeParse, "not a JSON object: %v", err))
			continue
		}
		c.handle(&m)
	}
}

func (c *conn) handle(m *jsonrpc.Message) {
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	switch {
	case m.JSONRPC != "" && m.JSONRPC != jsonrpc.Version:
		c.reply(jsonrpc.IDOrNull(m.ID), nil, jsonrpc.Errorf(codeInvalidRequest, "jsonrpc %q: only 2.0 is spoken", m.JSONRPC))
	case hasID && !jsonrpc.ValidID(m.ID):
		c.reply(jsonrpc.Null(), nil, jsonrpc.Errorf(codeInvalidRequest, "id must be a string or a number, not %s", m.ID))
	case m.Method == "" && hasID:
		c.answered(m)
	case m.Method == "":
		c.reply(jsonrpc.Null(), nil, jsonrpc.Errorf(codeInvalidRequest, "a message needs a method (or an id and a result)"))
	case !hasID:
		// Notifications: initialized is the only one a client sends; the
		// others are ignored, as JSON-RPC wants.
	default:
		c.request(m)
	}
}

// request runs a client request in its own goroutine, within the bound.
// initialize runs in line: the requests after it wait for it.
func (c *conn) request(m *jsonrpc.Message) {
	meth, ok := clientMethods[m.Method]
	switch {
	case !ok:
		c.reply(m.ID, nil, jsonrpc.Errorf(codeMethodNotFound, "unknown method %q", m.Method))
		return
	case m.Method == "initialize":
		result, _, err := meth.handle(c.base, c, m.Params)
		c.reply(m.ID, result, err)
		return
	case !c.initialized.Load():
		c.reply(m.ID, nil, jsonrpc.Errorf(codeInvalidRequest, "not initialized: send initialize first"))
		return
	}
	select {
	case c.requests <- struct{}{}:
	default:
		c.reply(m.ID, nil, overloaded("requestCapacity", "server overloaded: %d requests in flight on this connection; retry later", c.o.MaxRequests))
		return
	}
	c.handlers.Add(1)
	go func() {
		defer c.handlers.Done()
		result, then, err := meth.handle(c.base, c, m.Params)
		// A reply and what follows it (thread/started after thread/start)
		// go out together: the client, given the reply, may send its next
		// request at once, and that request's reply must not come first.
		c.replies.Lock()
		c.reply(m.ID, result, err)
		if then != nil {
			then()
		}
		c.replies.Unlock()
		<-c.requests // after the reply: one waiting for the queue still counts
	}()
}

// call sends the client a request and waits for its answer or ctx.
func (c *conn) call(ctx context.Context, method string, params any) (*jsonrpc.Message, error) {
	ch := make(chan *jsonrpc.Message, 1)
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.calls[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.calls, id)
		c.mu.Unlock()
	}()
	p, err := jsonrpc.Raw(params)
	c.send(&jsonrpc.Message{ID: json.RawMessage(strconv.FormatInt(id, 10)), Method: method, Params: p}, err)
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, m.Error
		}
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.dead:
		return nil, fmt.Errorf("the client is gone")
	}
}

// answered routes a client's response to the call waiting for it.
func (c *conn) answered(m *jsonrpc.Message) {
	var id int64
	if json.Unmarshal(m.ID, &id) != nil {
		return // not one of ours
	}
	c.mu.Lock()
	ch := c.calls[id]
	c.mu.Unlock()
	if ch != nil {
		select {
		case ch <- m:
		default: // answered twice
		}
	}
}
