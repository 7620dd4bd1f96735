package cluster

import (
	"context"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/session"
)

// WorkerLost is the reason of a session whose worker stopped
// heartbeating before the run ended.
const WorkerLost = "worker lost"

// MarkLost records that session id's worker was lost: crashed, reason
// "worker lost". A session already ended, or taken by another worker, is
// left alone. A run is queued again only while its --retries allow: then
// it reads pending, its lost attempt listed.
func (c *Cluster) MarkLost(ctx context.Context, id, worker string, now time.Time) (*Record, error) {
	r, _, err := c.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.Status.Ended() || r.Remote.Worker != worker {
		return r, nil
	}
	if r.Remote.Request != nil && len(r.Remote.Lost) < r.Remote.Retries {
		return c.requeue(ctx, r, worker, now)
	}
	r, err = c.Update(ctx, id, func(r *Record) error {
		if r.Status.Ended() || r.Remote.Worker != worker {
			return session.ErrNoChange
		}
		r.EndedAt = now.UTC()
		r.Reason = WorkerLost
		r.Failure = &session.Failure{Class: session.FailCrashed, Message: WorkerLost + " (" + worker + ")"}
		return r.Move(session.Crashed)
	})
	if err == nil && r.Status == session.Crashed && r.Remote.Retries > 0 && r.Remote.Tree != nil {
		c.DropTree(ctx, r.Remote.Tree) // kept for the attempts; none is left
	}
	return r, err
}

// requeue queues the next attempt of a run whose worker was lost. The
// request goes first, then the record: a worker given the request before
// the record says so waits for it (Worker.take), and a reaper that dies
// between the two leaves a record the next reaper requeues, its publish
// dropped as a duplicate.
func (c *Cluster) requeue(ctx context.Context, r *Record, worker string, now time.Time) (*Record, error) {
	req := *r.Remote.Request
	req.Attempt = r.Remote.attempt() + 1
	if err := c.publish(ctx, req); err != nil {
		return nil, err
	}
	return c.Update(ctx, r.ID, func(r *Record) error {
		if r.Status.Ended() || r.Remote.Worker != worker || r.Remote.attempt() != req.Attempt-1 {
			return session.ErrNoChange
		}
		lost := append(r.Remote.Lost, LostAttempt{Attempt: r.Remote.attempt(), Worker: worker, Host: r.Remote.Host,
			LocalID: r.Remote.LocalID, TakenAt: r.Remote.TakenAt, LostAt: now.UTC()})
		kill := r.Remote.KillRequestedAt
		*r = *newRecord(req, r.CreatedAt, now)
		r.Remote.Lost, r.Remote.KillRequestedAt = lost, kill
		return nil
	})
}

// Reaper tells when workers are lost and marks their sessions crashed.
// Every worker runs one, and so do `csa wait` and `csa logs -f`, so a lost
// worker is noticed while anyone is looking. A worker is lost only on
// evidence of its absence (Liveness), confirmed at the bucket's leader.
type Reaper struct {
	C   *Cluster
	Now func() time.Time
	// Self is the worker running this reaper: it never finds itself lost
	// (the others do, if its heartbeats stop reaching the bucket).
	Self string

	mu      sync.Mutex
	live    *Liveness
	upTo    uint64  // the last revision the watch read
	pending []probe // probes written and not yet read back, oldest first
}

func (r *Reaper) init() {
	if r.live == nil {
		r.live = NewLiveness()
	}
}

// Sweep reaps what the workers found lost since the last sweep left: it
// marks their sessions and returns those of them that had sessions
// running (a worker that stopped in good order has none).
func (r *Reaper) Sweep(ctx context.Context) ([]string, error) {
	r.mu.Lock()
	r.init()
	silent := r.live.Silent()
	r.mu.Unlock()
	var lost []string
	var unread error
	for _, s := range silent {
		if s.ID == r.Self {
			continue
		}
		gone, err := r.confirm(ctx, s.ID, s.Revision)
		if err != nil {
			unread = err // no verdict: the next sweep asks again
			continue
		}
		if !gone {
			continue // beating after all
		}
		if len(s.Running) > 0 {
			lost = append(lost, s.ID)
		}
		for _, id := range s.Running {
			if _, err := r.C.MarkLost(ctx, id, s.ID, r.Now()); err != nil && ctx.Err() == nil {
				return lost, err
			}
		}
	}
	return lost, unread
}

// Check settles one record: when its worker is lost as far as this
// reaper can tell, the record is marked so and returned. Without Watch
// only a worker whose heartbeat is gone from the bucket is.
func (r *Reaper) Check(ctx context.Context, rec *Record) (*Record, error) {
	w := rec.Remote.Worker
	if rec.Status.Ended() || w == "" || w == r.Self {
		return rec, nil
	}
	r.mu.Lock()
	r.init()
	rev, silent, known := r.live.Known(w)
	r.mu.Unlock()
	if known && !silent {
		return rec, nil
	}
	gone, err := r.confirm(ctx, w, rev)
	if err != nil || !gone {
		return rec, err
	}
	return r.C.MarkLost(ctx, rec.ID, w, r.Now())
}

// confirm asks the bucket's leader for worker id's heartbeat, last read
// at revision rev (0: never): it is gone when the leader has none, or
// still rev. A newer one (a heartbeat the watch skipped as it was
// rewritten before it was read) starts the worker's window again.
func (r *Reaper) confirm(ctx context.Context, id string, rev uint64) (bool, error) {
	last, found, err := r.C.heartbeatRevision(ctx, id)
	if err != nil {
		return false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case !found || rev != 0 && last == rev:
		r.live.Lost(id, rev)
		return true, nil
	case last > rev:
		r.live.Saw(id, last, nil, r.Now())
	}
	return false, nil
}
