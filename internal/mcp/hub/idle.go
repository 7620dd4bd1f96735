package hub

import "time"

// idle_ttl: an instance with no call for that long, and nothing in
// flight or queued, is stopped; the next need starts it again. An idle
// stop is no crash: no backoff, and restarts does not count it.

// touch records activity: the idle time counts from the last of it.
func (b *backend) touch() {
	b.mu.Lock()
	b.lastUse = time.Now()
	b.mu.Unlock()
}

// armIdle starts the idle timer of a new instance.
func (b *backend) armIdle() {
	ttl := b.cfg.IdleTTL.Std()
	if ttl <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.idleTimer == nil {
		b.idleTimer = time.AfterFunc(ttl, b.idleCheck)
	} else {
		b.idleTimer.Reset(ttl)
	}
}

// idleCheck stops the instance if it has been idle for the whole TTL, and
// otherwise looks again when it could be.
func (b *backend) idleCheck() {
	ttl := b.cfg.IdleTTL.Std()
	b.mu.Lock()
	if b.conn == nil {
		b.mu.Unlock()
		return
	}
	busy := b.busy()
	left := ttl - time.Since(b.lastUse)
	if busy || left > 0 {
		if busy || left < 0 {
			left = ttl
		}
		b.idleTimer.Reset(left)
		b.mu.Unlock()
		return
	}
	b.stopIdle() // unlocks b.mu
}

// busy: a call pending at the instance, in flight or waiting to go
// (b.mu held).
func (b *backend) busy() bool {
	return (b.conn != nil && len(b.conn.pending) > 0) || b.inflight > 0 || len(b.ready) > 0
}

// stopIdle stops the running instance as an idle one: the next need
// starts it again (b.mu held, and unlocked here).
func (b *backend) stopIdle() {
	c := b.conn
	b.conn = nil
	b.state = stateIdle
	b.idleStops++
	b.forgetLive()
	b.mu.Unlock()
	b.hub.gen.Add(1)
	c.link.stop(2 * time.Second)
}
