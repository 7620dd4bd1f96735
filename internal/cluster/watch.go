package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// clockKey is the workers bucket's key observers write to learn whether
// the bucket takes writes and how far their watch of it has read (the
// listing in Beats skips it).
const clockKey = "_clock"

// watchStale: a watch that has not read back a probe written this long
// ago is made again (an ordered consumer that stopped delivering without
// closing).
const watchStale = 2 * LostAfter

// probe is a write of clockKey not yet read back through the watch.
type probe struct {
	rev  uint64
	sent time.Time
}

// Watch starts following the workers bucket until ctx ends: every
// heartbeat written is read in order through a watch (one consumer for
// the observer's life, not a listing a second), and a probe written to
// clockKey every HeartbeatEvery tells how far the watch has read and
// whether the bucket takes writes. Without Watch, Check sees only workers
// whose heartbeat is gone from the bucket.
func (r *Reaper) Watch(ctx context.Context) {
	r.mu.Lock()
	r.init()
	r.watching = true
	r.mu.Unlock()
	go r.follow(ctx)
	go r.probes(ctx)
}

// follow reads the bucket's changes, making the watch again whenever it
// ends or stalls.
func (r *Reaper) follow(ctx context.Context) {
	for ctx.Err() == nil {
		var kw jetstream.KeyWatcher
		var stop context.CancelFunc
		err := retryEach(ctx, 0, func(ctx context.Context) error {
			var err error
			kw, stop, err = r.watch(ctx)
			return err
		})
		if err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(HeartbeatEvery):
			}
			continue
		}
		r.read(ctx, kw)
		stop()
		r.mu.Lock()
		r.live.Unhealthy(r.Now()) // a new watch starts over
		r.mu.Unlock()
	}
}

// watch starts a watch of the whole bucket, to be ended by stop. The
// client ends a watch when the context it was made with ends, so that
// context lives as long as the watch; only its making is bounded, by
// callTimeout.
func (r *Reaper) watch(ctx context.Context) (kw jetstream.KeyWatcher, stop context.CancelFunc, err error) {
	wctx, stop := context.WithCancel(ctx)
	timer := time.AfterFunc(callTimeout, stop)
	kw, err = r.C.Workers.WatchAll(wctx)
	if !timer.Stop() && err == nil {
		kw.Stop()
		err = context.DeadlineExceeded
	}
	if err != nil {
		stop()
		return nil, nil, err
	}
	return kw, stop, nil
}

// read takes kw's entries until it ends, ctx ends, or it stalls.
func (r *Reaper) read(ctx context.Context, kw jetstream.KeyWatcher) {
	t := time.NewTicker(HeartbeatEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if r.stalled() {
				return
			}
		case e, ok := <-kw.Updates():
			if !ok {
				return
			}
			if e != nil { // nil: the initial values are all read
				r.entry(e)
			}
		}
	}
}

// entry records one change of the bucket.
func (r *Reaper) entry(e jetstream.KeyValueEntry) {
	now := r.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.upTo = max(r.upTo, e.Revision())
	r.readBack(now)
	if e.Key() == clockKey {
		return
	}
	if e.Operation() != jetstream.KeyValuePut {
		r.live.Deleted(e.Key(), e.Revision(), now) // it stopped beating
		return
	}
	var h Heartbeat
	if json.Unmarshal(e.Value(), &h) == nil {
		r.live.Saw(e.Key(), e.Revision(), &h, now)
	}
}

// readBack settles the probes the watch has read (a probe may be read
// before its write's acknowledgement comes): what they cover, and whether
// the watch lagged.
func (r *Reaper) readBack(now time.Time) {
	for len(r.pending) > 0 && r.pending[0].rev <= r.upTo {
		p := r.pending[0]
		r.pending = r.pending[1:]
		if now.Sub(p.sent) > HeartbeatEvery {
			r.live.Unhealthy(now)
		}
		r.live.Covered(p.sent)
	}
}

// stalled: a probe written watchStale ago has not been read back.
func (r *Reaper) stalled() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending) > 0 && r.Now().Sub(r.pending[0].sent) > watchStale
}

// probes writes clockKey every HeartbeatEvery until ctx ends. A write
// that fails or is slow, or a tick that comes late (the observer was
// stalled), makes the bucket unhealthy until then.
func (r *Reaper) probes(ctx context.Context) {
	last := r.Now()
	everyBeat(ctx, func() {
		start := r.Now()
		pctx, cancel := context.WithTimeout(ctx, HeartbeatEvery)
		rev, err := r.C.Workers.Put(pctx, clockKey, []byte(start.UTC().Format(time.RFC3339Nano)))
		cancel()
		end := r.Now()
		r.mu.Lock()
		defer r.mu.Unlock()
		if err != nil || end.Sub(start) > HeartbeatEvery || start.Sub(last) > 3*HeartbeatEvery {
			r.live.Unhealthy(end)
		}
		if err == nil {
			r.pending = append(r.pending, probe{rev: rev, sent: start})
			r.readBack(end)
		}
		last = start
	})
}

// heartbeatRevision reads the revision of worker id's last entry in the
// workers bucket from its stream's leader; found is false when the key
// has none: the heartbeat expired (workerTTL without a beat).
func (c *Cluster) heartbeatRevision(ctx context.Context, id string) (rev uint64, found bool, err error) {
	e, found, err := c.lastAtLeader(ctx, WorkersBucket, id)
	if err != nil {
		return 0, false, fmt.Errorf("heartbeat of %s: %w", id, err)
	}
	return e.rev, found, nil
}
