package cluster

import (
	"context"
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

// Reaper watches the workers' heartbeats and marks the sessions of lost
// workers crashed. Every worker runs one, and so does `csa wait`, so a
// lost worker is noticed while anyone is looking.
type Reaper struct {
	C    *Cluster
	Now  func() time.Time
	live *Liveness

	lastRead  time.Time // the end of the last Beats
	lastProbe time.Time
	probeOK   bool
}

// clockKey is the workers bucket's key observers write to learn whether
// the bucket takes writes (Beats skips it).
const clockKey = "_clock"

// Beats reads the heartbeats as the reaper's observations, noting when
// the bucket was not taking writes (a probe write to clockKey failed or
// was slow, at most one per HeartbeatEvery) or when the observer itself
// fell behind (the read was slow, or came long after the last one).
func (r *Reaper) Beats(ctx context.Context) (map[string]Beat, error) {
	if r.live == nil {
		r.live = NewLiveness(r.Now)
	}
	start := r.Now()
	if start.Sub(r.lastProbe) >= HeartbeatEvery {
		pctx, cancel := context.WithTimeout(ctx, HeartbeatEvery)
		_, err := r.C.Workers.Put(pctx, clockKey, []byte(start.UTC().Format(time.RFC3339Nano)))
		cancel()
		r.probeOK, r.lastProbe = err == nil, start
	}
	beats, err := r.C.Beats(ctx)
	end := r.Now()
	behind := !r.lastRead.IsZero() && start.Sub(r.lastRead) > 3*HeartbeatEvery
	if err != nil || !r.probeOK || end.Sub(start) > HeartbeatEvery || behind {
		r.live.Unhealthy(end)
	}
	r.lastRead = end
	return beats, err
}

// Sweep reads the heartbeats once and reaps what lost workers left; it
// returns the lost workers that had sessions running (a worker that
// stopped in good order has none).
func (r *Reaper) Sweep(ctx context.Context) ([]string, error) {
	beats, err := r.Beats(ctx)
	if err != nil {
		return nil, err
	}
	var lost []string
	for w, ids := range r.live.Observe(beats) {
		if len(ids) > 0 {
			lost = append(lost, w)
		}
		for _, id := range ids {
			if _, err := r.C.MarkLost(ctx, id, w, r.Now()); err != nil && ctx.Err() == nil {
				return lost, err
			}
		}
	}
	return lost, nil
}

// Check settles one record: when its worker is lost as far as this
// reaper can tell, the record is marked so and returned. beats are what
// r.Beats read.
func (r *Reaper) Check(ctx context.Context, rec *Record, beats map[string]Beat) (*Record, error) {
	if r.live == nil {
		r.live = NewLiveness(r.Now)
	}
	if rec.Status.Ended() || rec.Remote.Worker == "" || !r.live.Lost(rec.Remote.Worker, beats) {
		return rec, nil
	}
	return r.C.MarkLost(ctx, rec.ID, rec.Remote.Worker, r.Now())
}
