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
// left alone. The run is not queued again.
func (c *Cluster) MarkLost(ctx context.Context, id, worker string, now time.Time) (*Record, error) {
	return c.Update(ctx, id, func(r *Record) error {
		if r.Status.Ended() || r.Remote.Worker != worker {
			return session.ErrNoChange
		}
		r.EndedAt = now.UTC()
		r.Reason = WorkerLost
		r.Failure = &session.Failure{Class: session.FailCrashed, Message: WorkerLost + " (" + worker + ")"}
		return r.Move(session.Crashed)
	})
}

// Reaper watches the workers' heartbeats and marks the sessions of lost
// workers crashed. Every worker runs one, and so does `csa wait`, so a
// lost worker is noticed while anyone is looking.
type Reaper struct {
	C    *Cluster
	Now  func() time.Time
	live *Liveness
}

// Sweep reads the heartbeats once and reaps what lost workers left; it
// returns the lost workers that had sessions running (a worker that
// stopped in good order has none).
func (r *Reaper) Sweep(ctx context.Context) ([]string, error) {
	if r.live == nil {
		r.live = NewLiveness(r.Now)
	}
	beats, err := r.C.Beats(ctx)
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
// reaper can tell, the record is marked so and returned.
func (r *Reaper) Check(ctx context.Context, rec *Record, beats map[string]Beat) (*Record, error) {
	if r.live == nil {
		r.live = NewLiveness(r.Now)
	}
	if rec.Status.Ended() || rec.Remote.Worker == "" || !r.live.Lost(rec.Remote.Worker, beats) {
		return rec, nil
	}
	return r.C.MarkLost(ctx, rec.ID, rec.Remote.Worker, r.Now())
}
