package cluster

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
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
// it reads pending, its lost attempt listed. The decision rests on the
// record as the bucket's leader holds it: a replica behind (one from
// before the worker's claim) would leave a lost worker's run running.
func (c *Cluster) MarkLost(ctx context.Context, id, worker string, now time.Time) (*Record, error) {
	var again bool
	ours := func(r *Record) bool { return !r.Status.Ended() && r.Remote.Worker == worker }
	r, _, err := c.updateAtLeader(ctx, id, func(r *Record) error {
		again = false
		if !ours(r) {
			return session.ErrNoChange
		}
		if r.Remote.Request != nil && len(r.Remote.Lost) < r.Remote.Retries {
			again = true
			return session.ErrNoChange
		}
		r.EndedAt = now.UTC()
		r.Reason = WorkerLost
		r.Failure = &session.Failure{Class: session.FailCrashed, Message: WorkerLost + " (" + worker + ")"}
		return r.Move(session.Crashed)
	})
	if err != nil {
		return nil, err
	}
	if again {
		return c.requeue(ctx, r, ours, WorkerLost, now)
	}
	if r.Status == session.Crashed && r.Remote.Retries > 0 && r.Remote.Tree != nil {
		c.DropTree(ctx, r.Remote.Tree) // kept for the attempts; none is left
	}
	return r, nil
}

// requeue queues the next attempt of run r, whose current attempt came to
// nothing for reason why, while the record still reads as r does (still).
// The request goes first, then the record: a worker given the request
// before the record says so waits for it (Worker.take), and a reaper that
// dies between the two leaves a record the next reaper requeues, its
// publish dropped as a duplicate.
func (c *Cluster) requeue(ctx context.Context, r *Record, still func(*Record) bool, why string, now time.Time) (*Record, error) {
	req := *r.Remote.Request
	req.Attempt = r.Remote.attempt() + 1
	if err := c.publish(ctx, req); err != nil {
		return nil, err
	}
	r, _, err := c.updateAtLeader(ctx, r.ID, func(r *Record) error {
		if !still(r) || r.Remote.attempt() != req.Attempt-1 {
			return session.ErrNoChange
		}
		lost := append(r.Remote.Lost, LostAttempt{Attempt: r.Remote.attempt(), Worker: r.Remote.Worker, Host: r.Remote.Host,
			LocalID: r.Remote.LocalID, TakenAt: r.Remote.TakenAt, LostAt: now.UTC(), Reason: why})
		kill := r.Remote.KillRequestedAt
		*r = *newRecord(req, r.CreatedAt, now)
		r.Remote.Lost, r.Remote.KillRequestedAt = lost, kill
		return nil
	})
	return r, err
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
	// unmarked: sessions of lost workers not marked yet (a failed mark).
	unmarked map[lostRun]struct{}
	// watching: Watch was called; unheld: claims found pending on a
	// live worker (stranded.go).
	watching bool
	unheld   map[string]*unheld
}

func (r *Reaper) init() {
	if r.live == nil {
		r.live = NewLiveness()
		r.unmarked = map[lostRun]struct{}{}
		r.unheld = map[string]*unheld{}
	}
}

// Sweep reaps what the workers found lost since the last sweep left: it
// marks their sessions and returns those of them that had sessions
// running (a worker that stopped in good order has none). A session it
// could not mark is tried again by the next sweep.
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
		r.mu.Lock()
		for _, id := range s.Running {
			r.unmarked[lostRun{id: id, worker: s.ID}] = struct{}{}
		}
		r.mu.Unlock()
	}
	if err := r.markUnmarked(ctx); err != nil {
		unread = err
	}
	return lost, unread
}

// lostRun is a session a lost worker's last heartbeat named.
type lostRun struct{ id, worker string }

// markUnmarked marks the sessions of lost workers not marked yet; those
// that fail stay for the next sweep.
func (r *Reaper) markUnmarked(ctx context.Context) error {
	r.mu.Lock()
	todo := slices.Collect(maps.Keys(r.unmarked))
	r.mu.Unlock()
	var failed error
	for _, l := range todo {
		_, err := r.C.MarkLost(ctx, l.id, l.worker, r.Now())
		if err != nil && ctx.Err() != nil {
			return err
		}
		if err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, errCorrupt) {
			failed = fmt.Errorf("session %s of lost worker %s: %w", l.id, l.worker, err)
			continue
		}
		r.mu.Lock()
		delete(r.unmarked, l)
		r.mu.Unlock()
		if err != nil {
			failed = err // nothing to mark there, ever: told once
		}
	}
	return failed
}

// Check settles one record: when its worker is lost as far as this
// reaper can tell, the record is marked so and returned; when its worker
// lives and claimed it but does not run it, it is settled as unstarted.
// Without Watch only a worker whose heartbeat is gone from the bucket is
// lost, and no claim is found unheld.
func (r *Reaper) Check(ctx context.Context, rec *Record) (*Record, error) {
	w := rec.Remote.Worker
	if rec.Status.Ended() || w == "" {
		return rec, nil
	}
	r.mu.Lock()
	r.init()
	rev, silent, known := r.live.Known(w)
	r.mu.Unlock()
	if w == r.Self || known && !silent {
		return r.unstarted(ctx, rec)
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
