package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
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

// Beats reads every worker's heartbeat with its revision, for display
// (csa cluster status). A listing of the bucket can miss a worker: the
// client's listing ends without an error when its call times out, and it
// skips a key rewritten while it reads. Liveness never rests on it
// (Reaper watches the bucket instead).
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
		if err := ctx.Err(); err != nil {
			return err // cut short: try again
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

// Liveness tells lost workers from live ones on one observer's clock,
// from a complete read of the workers bucket in order (a watch of it):
// Saw for each heartbeat read, Covered once the read has reached a probe
// the observer wrote, Unhealthy while the bucket or the observer did not
// keep up.
//
// A worker is silent when a probe written LostAfter after its last
// heartbeat was read has come back through the read with no newer
// heartbeat before it, the bucket taking writes promptly all along. That
// is evidence of absence over the whole window; nothing else is: a read
// that failed, timed out or has not reached the probe yet says nothing,
// however long it lasts, and so does time when the bucket took no writes
// (its stream electing a leader after a server was lost, which under
// load takes longer than LostAfter) or the observer was stalled.
type Liveness struct {
	seen    map[string]*sighting
	covered time.Time // the read holds every heartbeat written before this
	healthy time.Time // since when the bucket and the observer have kept up
}

type sighting struct {
	rev uint64
	at  time.Time // when this observer read rev
	hb  Heartbeat
	// hbRev is the revision hb was read at; deleted: the key was
	// deleted then (the worker stopped).
	hbRev   uint64
	deleted bool
	// lost: reported lost at rev (a newer heartbeat clears it).
	lost bool
}

// NewLiveness starts observing.
func NewLiveness() *Liveness {
	return &Liveness{seen: map[string]*sighting{}}
}

// Saw records that worker id's heartbeat at revision rev was read at at;
// hb nil: the revision is known but not its heartbeat (read elsewhere, or
// the key deleted). A revision no newer than the last changes nothing.
func (l *Liveness) Saw(id string, rev uint64, hb *Heartbeat, at time.Time) {
	s := l.seen[id]
	switch {
	case s == nil:
		s = &sighting{rev: rev, at: at}
		l.seen[id] = s
	case rev > s.rev:
		s.rev, s.at, s.lost = rev, at, false
	case rev < s.rev || hb == nil:
		return
	}
	if hb != nil {
		s.hb, s.hbRev, s.deleted = *hb, rev, false
	}
}

// Deleted records that worker id's heartbeat was deleted at revision rev
// (read at at): it stopped.
func (l *Liveness) Deleted(id string, rev uint64, at time.Time) {
	l.Saw(id, rev, nil, at)
	if s := l.seen[id]; s.rev == rev {
		s.hbRev, s.deleted = rev, true
	}
}

// Holds tells whether worker id's last heartbeat read, if it is newer
// than revision after (known), names session: a worker names each run it
// holds from before its claim until the run has ended. rev is that
// heartbeat's revision.
func (l *Liveness) Holds(id, session string, after uint64) (rev uint64, known, holds bool) {
	s := l.seen[id]
	if s == nil || s.hbRev <= after {
		return 0, false, false
	}
	return s.hbRev, true, !s.deleted && slices.Contains(s.hb.Running, session)
}

// Covered records that the read holds everything written to the bucket
// before sent (when a probe it has read back was written).
func (l *Liveness) Covered(sent time.Time) {
	if sent.After(l.covered) {
		l.covered = sent
	}
}

// Unhealthy records that until at the bucket took no writes promptly, or
// the read or the observer fell behind: a heartbeat unchanged until then
// is not held against its worker.
func (l *Liveness) Unhealthy(at time.Time) {
	if at.After(l.healthy) {
		l.healthy = at
	}
}

// Silence is a worker found silent: its last revision read, and the
// sessions its last heartbeat named.
type Silence struct {
	ID       string
	Revision uint64
	Running  []string
}

// Silent lists the workers silent for LostAfter and not yet reported
// lost.
func (l *Liveness) Silent() []Silence {
	var out []Silence
	for id, s := range l.seen {
		if !s.lost && l.silent(s) {
			out = append(out, Silence{ID: id, Revision: s.rev, Running: s.hb.Running})
		}
	}
	return out
}

// Known is worker id's last revision read, and whether it is silent (or
// was reported lost at it).
func (l *Liveness) Known(id string) (rev uint64, silent, ok bool) {
	s := l.seen[id]
	if s == nil {
		return 0, false, false
	}
	return s.rev, s.lost || l.silent(s), true
}

// Lost records that worker id was reported lost at revision rev.
func (l *Liveness) Lost(id string, rev uint64) {
	if s := l.seen[id]; s != nil && s.rev == rev {
		s.lost = true
	}
}

// silent: from when s was read, or the bucket became healthy again,
// until what the read covers, LostAfter passed.
func (l *Liveness) silent(s *sighting) bool {
	since := s.at
	if l.healthy.After(since) {
		since = l.healthy
	}
	return l.covered.Sub(since) >= LostAfter
}
