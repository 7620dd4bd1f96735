package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/csa-dev/csa/internal/session"
)

// A claim can reach its record and not its worker's run: a take that gave
// up on its claim's answer, a worker stopped while claiming. The record
// then reads pending on a worker that does not run it, and nothing would
// ever start or end it. Reapers that watch the workers bucket settle such
// a record once its worker's heartbeats, written after the claim was
// seen, have not named it for strandedAfter: every worker's reaper looks
// at every pending record every strandedEvery, and `csa wait` and `logs
// -f` at those they follow.
const (
	strandedAfter = LostAfter
	strandedEvery = 30 * time.Second
)

// NeverStarted is the reason of an attempt its worker claimed and never
// started (and does not run).
const NeverStarted = "claimed and never started"

// claim is who took a pending record, and when (the worker's clock: an
// identity, never compared with another clock).
type claim struct {
	worker  string
	attempt int
	takenAt time.Time
}

func claimOf(r *Record) claim {
	return claim{worker: r.Remote.Worker, attempt: r.Remote.attempt(), takenAt: r.Remote.TakenAt}
}

func (c claim) is(r *Record) bool {
	o := claimOf(r)
	return r.Status == session.Pending && o.worker == c.worker && o.attempt == c.attempt && o.takenAt.Equal(c.takenAt)
}

// unheld is a claim found pending, with what proves its worker let go of
// it: a heartbeat of the worker newer than after, read by the watch, that
// does not name the session.
type unheld struct {
	claim
	after uint64    // a workers bucket revision written after the claim was read
	since time.Time // on this observer's clock: found, or last seen held
}

// unstarted settles rec when it is pending on a live worker that does not
// run it (see strandedAfter); otherwise it returns rec as it is. Only a
// reaper that watches the workers bucket can tell.
func (r *Reaper) unstarted(ctx context.Context, rec *Record) (*Record, error) {
	r.mu.Lock()
	watching := r.watching
	u := r.unheld[rec.ID]
	if rec.Status != session.Pending || rec.Remote.Worker == "" {
		delete(r.unheld, rec.ID) // started, or queued again
		u, watching = nil, false
	}
	r.mu.Unlock()
	if !watching {
		return rec, nil
	}
	if u == nil || !u.is(rec) {
		// A mark in the workers bucket, written after this claim was
		// read: the worker's heartbeats after it tell what it holds.
		pctx, cancel := context.WithTimeout(ctx, callTimeout)
		after, err := r.C.Workers.Put(pctx, clockKey, []byte(r.Now().UTC().Format(time.RFC3339Nano)))
		cancel()
		if err != nil {
			return rec, nil // no mark: the next look writes one
		}
		r.mu.Lock()
		r.unheld[rec.ID] = &unheld{claim: claimOf(rec), after: after, since: r.Now()}
		r.mu.Unlock()
		return rec, nil
	}
	r.mu.Lock()
	rev, known, holds := r.live.Holds(u.worker, rec.ID, u.after)
	if holds {
		u.after, u.since = rev, r.Now() // held: a later heartbeat without it would tell
	}
	due := known && !holds && r.Now().Sub(u.since) >= strandedAfter
	r.mu.Unlock()
	if !due {
		return rec, nil
	}
	got, err := r.C.settleUnstarted(ctx, rec.ID, u.claim, r.Now())
	if err == nil {
		r.mu.Lock()
		delete(r.unheld, rec.ID)
		r.mu.Unlock()
	}
	return got, err
}

// Stranded looks at every record pending on a worker and settles those
// its reaper can (Check): a lost worker's, and one a live worker claimed
// and does not run. It returns the records it changed.
func (r *Reaper) Stranded(ctx context.Context) ([]*Record, error) {
	pending, err := r.C.claimedPending(ctx)
	if err != nil {
		return nil, err
	}
	var changed []*Record
	var failed error
	found := map[string]bool{}
	for _, rec := range pending {
		found[rec.ID] = true
		got, err := r.Check(ctx, rec)
		if err != nil {
			failed = fmt.Errorf("session %s: %w", rec.ID, err)
			continue
		}
		if got.Status != rec.Status || got.Remote.attempt() != rec.Remote.attempt() {
			changed = append(changed, got)
		}
	}
	r.mu.Lock()
	for id := range r.unheld {
		if !found[id] {
			delete(r.unheld, id) // no longer pending on a worker
		}
	}
	r.mu.Unlock()
	return changed, failed
}

// claimedPending reads the records pending on a worker (one pass over the
// bucket, as List, decoding whole only those).
func (c *Cluster) claimedPending(ctx context.Context) ([]*Record, error) {
	var out []*Record
	err := c.each(ctx, func() { out = out[:0] }, func(v []byte) {
		var head struct {
			Status session.Status `json:"state"`
			Remote struct {
				Worker string `json:"worker"`
			} `json:"remote"`
		}
		if json.Unmarshal(v, &head) != nil || head.Status != session.Pending || head.Remote.Worker == "" {
			return
		}
		var r Record
		if decodeJSON(v, &r) == nil {
			out = append(out, &r)
		}
	})
	return out, err
}

// settleUnstarted ends the attempt of run id that claim took and never
// started, if the record (read at the leader) still reads pending on it:
// killed when a kill was asked; queued again while its --retries allow,
// the attempt listed with reason NeverStarted; else failed (start_failed).
func (c *Cluster) settleUnstarted(ctx context.Context, id string, cl claim, now time.Time) (*Record, error) {
	var again, ended bool
	why := fmt.Sprintf("worker %s %s", cl.worker, NeverStarted)
	r, _, err := c.updateAtLeader(ctx, id, func(r *Record) error {
		again, ended = false, false
		switch {
		case !cl.is(r):
			return session.ErrNoChange
		case !r.Remote.KillRequestedAt.IsZero():
			endKilled(r, now)
			ended = true
			return nil
		case r.Remote.Request != nil && len(r.Remote.Lost) < r.Remote.Retries:
			again = true
			return session.ErrNoChange
		}
		r.EndedAt = now.UTC()
		r.Reason = why
		r.Failure = &session.Failure{Class: session.FailStart, Message: why}
		ended = true
		return r.Move(session.Failed)
	})
	if err != nil {
		return nil, err
	}
	if again {
		return c.requeue(ctx, r, cl.is, NeverStarted, now)
	}
	if ended && r.Remote.Tree != nil {
		c.DropTree(ctx, r.Remote.Tree) // kept for the attempts, or never checked out
	}
	return r, nil
}
