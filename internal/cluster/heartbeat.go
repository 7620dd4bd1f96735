package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Heartbeat is a worker's entry in the workers bucket, rewritten every
// HeartbeatEvery while it lives.
type Heartbeat struct {
	ID            string            `json:"id"`
	Host          string            `json:"host"`
	PID           int               `json:"pid"`
	Labels        map[string]string `json:"labels,omitempty"`
	MaxConcurrent int               `json:"max_concurrent"`
	// Running are the remote sessions it has taken and not yet ended.
	Running   []string  `json:"running"`
	StartedAt time.Time `json:"started_at"`
	At        time.Time `json:"at"` // the worker's clock, for display only
}

// Beats reads every worker's heartbeat with its revision.
func (c *Cluster) Beats(ctx context.Context) (map[string]Beat, error) {
	out := map[string]Beat{}
	err := retry(ctx, func(ctx context.Context) error {
		clear(out)
		lister, err := c.Workers.ListKeys(ctx)
		if err != nil {
			return err
		}
		var keys []string
		for k := range lister.Keys() {
			keys = append(keys, k)
		}
		for _, k := range keys {
			if k == clockKey {
				continue
			}
			e, err := c.Workers.Get(ctx, k)
			if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
				continue
			}
			if err != nil {
				return err
			}
			var h Heartbeat
			if json.Unmarshal(e.Value(), &h) == nil {
				out[k] = Beat{Heartbeat: h, Revision: e.Revision()}
			}
		}
		return nil
	})
	return out, err
}

// Beat is a heartbeat as read, with its revision in the bucket.
type Beat struct {
	Heartbeat
	Revision uint64
}

// Liveness tells lost workers from live ones by watching their heartbeats
// change on the observer's own clock: a worker is lost when its heartbeat
// is gone, or has not changed for LostAfter since this observer first
// saw its current revision and since the bucket last became healthy.
//
// A heartbeat that did not change while the bucket took no writes (its
// stream was electing a leader after a server was lost, which under load
// takes longer than LostAfter) or while the observer itself was stalled
// says nothing about the worker: the time before the observer saw the
// bucket healthy again does not count.
type Liveness struct {
	now     func() time.Time
	seen    map[string]sighting
	healthy time.Time // since when the bucket and the observer have kept up
}

type sighting struct {
	rev uint64
	at  time.Time
	hb  Heartbeat
}

// NewLiveness starts observing; now is the observer's clock.
func NewLiveness(now func() time.Time) *Liveness {
	return &Liveness{now: now, seen: map[string]sighting{}}
}

// Observe records the heartbeats just read and returns the workers now
// lost, with the sessions each had last said it ran. A worker counts as
// lost once; it is forgotten then.
func (l *Liveness) Observe(beats map[string]Beat) map[string][]string {
	now := l.now()
	lost := map[string][]string{}
	for id, s := range l.seen {
		b, ok := beats[id]
		switch {
		case !ok:
			lost[id] = s.hb.Running
			delete(l.seen, id)
		case b.Revision != s.rev:
			l.seen[id] = sighting{b.Revision, now, b.Heartbeat}
		case l.unchanged(s, now) >= LostAfter:
			lost[id] = s.hb.Running
			delete(l.seen, id)
		}
	}
	for id, b := range beats {
		if _, gone := lost[id]; gone {
			continue
		}
		if _, ok := l.seen[id]; !ok {
			l.seen[id] = sighting{b.Revision, now, b.Heartbeat}
		}
	}
	return lost
}

// Lost reports whether worker id is lost as far as this observer can
// tell: not in beats at all, or unchanged for LostAfter.
func (l *Liveness) Lost(id string, beats map[string]Beat) bool {
	b, ok := beats[id]
	if !ok {
		return true
	}
	s, seen := l.seen[id]
	if !seen || s.rev != b.Revision {
		l.seen[id] = sighting{b.Revision, l.now(), b.Heartbeat}
		return false
	}
	return l.unchanged(s, l.now()) >= LostAfter
}

// Unhealthy records that until at the bucket took no writes or the
// observer could not keep up: a heartbeat unchanged until then is not
// counted against its worker.
func (l *Liveness) Unhealthy(at time.Time) {
	if at.After(l.healthy) {
		l.healthy = at
	}
}

// unchanged is how long s has stood still while the bucket was healthy.
func (l *Liveness) unchanged(s sighting, now time.Time) time.Duration {
	since := s.at
	if l.healthy.After(since) {
		since = l.healthy
	}
	return now.Sub(since)
}
