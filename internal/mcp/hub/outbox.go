package hub

import (
	"io"
	"sync"
)

// outbox writes messages to one peer from its own goroutine, so a client
// that stops reading stalls only itself, never a backend shared with
// others. It is unbounded: what one client is owed is bounded by what it
// asked for.
type outbox struct {
	mu     sync.Mutex
	cond   *sync.Cond
	queue  [][]byte
	closed bool
	done   chan struct{}
}

func newOutbox(w io.Writer) *outbox {
	o := &outbox{done: make(chan struct{})}
	o.cond = sync.NewCond(&o.mu)
	go o.run(w)
	return o
}

func (o *outbox) send(m *msg) {
	b := encode(m)
	o.mu.Lock()
	if !o.closed {
		o.queue = append(o.queue, b)
		o.cond.Signal()
	}
	o.mu.Unlock()
}

// close stops the writer once what is queued has been written.
func (o *outbox) close() {
	o.mu.Lock()
	o.closed = true
	o.cond.Signal()
	o.mu.Unlock()
}

func (o *outbox) run(w io.Writer) {
	defer close(o.done)
	for {
		o.mu.Lock()
		for len(o.queue) == 0 && !o.closed {
			o.cond.Wait()
		}
		batch := o.queue
		o.queue = nil
		closed := o.closed
		o.mu.Unlock()
		for _, b := range batch {
			if _, err := w.Write(b); err != nil {
				o.mu.Lock()
				o.closed, o.queue = true, nil
				o.mu.Unlock()
				return
			}
		}
		if closed && len(batch) == 0 {
			return
		}
	}
}
