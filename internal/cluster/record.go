package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/csa-dev/csa/internal/remoterun"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/verbatim"
)

// Record is a remote session as every machine sees it: the same state a
// local session records (the fields of `csa inspect --json`), and where
// it runs.
type Record struct {
	session.State
	Remote Remote `json:"remote"`
}

// Remote is what a remote session adds to a local one.
type Remote struct {
	// Labels are what the run asked of its worker (k=v, all must match).
	Labels map[string]string `json:"labels,omitempty"`
	// Worker took the run; Host is its machine. LocalID is the session
	// in the worker's own store that runs it.
	Worker   string    `json:"worker,omitempty"`
	Host     string    `json:"host,omitempty"`
	LocalID  string    `json:"local_id,omitempty"`
	QueuedAt time.Time `json:"queued_at"`
	TakenAt  time.Time `json:"taken_at,omitzero"`
	// Tree is the working tree the run started from (nil: it ran in
	// its Cwd as that is on the worker); Diff what the agent changed in
	// it, set when the run ends.
	Tree *remoterun.TreeRef `json:"tree,omitempty"`
	Diff *ResultDiff        `json:"diff,omitempty"`
	// KillRequestedAt: csa kill asked the worker to stop the run.
	KillRequestedAt time.Time `json:"kill_requested_at,omitzero"`
	// KillGraceMS is the grace csa kill gave (nil: the worker's own).
	KillGraceMS *int64 `json:"kill_grace_ms,omitempty"`

	// Retries is how many times the run may be queued again when its
	// worker is lost (--retries; 0: never, agent runs are not
	// idempotent). Attempt is the current attempt, from 1; Lost lists
	// the attempts that came to nothing. Request is kept to queue it
	// again (only when Retries > 0).
	Retries int                `json:"retries,omitempty"`
	Attempt int                `json:"attempt,omitempty"`
	Lost    []LostAttempt      `json:"lost_attempts,omitempty"`
	Request *remoterun.Request `json:"request,omitempty"`
}

// LostAttempt is an attempt of a run that came to nothing: its worker
// was lost, or it claimed the run and never started it.
type LostAttempt struct {
	Attempt int       `json:"attempt"`
	Worker  string    `json:"worker"`
	Host    string    `json:"host,omitempty"`
	LocalID string    `json:"local_id,omitempty"`
	TakenAt time.Time `json:"taken_at,omitzero"`
	LostAt  time.Time `json:"lost_at"`
	// Reason: WorkerLost or NeverStarted (none: WorkerLost).
	Reason string `json:"reason,omitempty"`
}

// attempt is the record's current attempt (records before retries have
// none: the first).
func (r *Remote) attempt() int { return max(r.Attempt, 1) }

// ErrNotFound: no remote session has the id.
var ErrNotFound = errors.New("no remote session")

// errCorrupt: a record that does not decode.
var errCorrupt = errors.New("corrupt record")

// Get reads session id's record.
func (c *Cluster) Get(ctx context.Context, id string) (*Record, uint64, error) {
	var e jetstream.KeyValueEntry
	err := retry(ctx, func(ctx context.Context) error {
		var err error
		e, err = c.Sessions.Get(ctx, id)
		return err
	})
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, 0, fmt.Errorf("%w %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("cluster: session %s: %w", id, err)
	}
	var r Record
	if err := decodeJSON(e.Value(), &r); err != nil {
		return nil, 0, fmt.Errorf("cluster: session %s: %w: %w", id, errCorrupt, err)
	}
	return &r, e.Revision(), nil
}

// Update changes session id's record with fn, compare-and-set: when
// another machine wrote it meanwhile, fn runs again on the newer record.
// fn may return session.ErrNoChange to write nothing.
func (c *Cluster) Update(ctx context.Context, id string, fn func(*Record) error) (*Record, error) {
	r, _, err := c.update(ctx, id, 0, fn)
	return r, err
}

// update is Update on a record read at revision minRev or later, and
// returns the revision written (or read, when fn changed nothing). A
// read may be answered by a replica behind the bucket's leader: one
// older than what the caller already knows of is read again, never
// handed to fn.
func (c *Cluster) update(ctx context.Context, id string, minRev uint64, fn func(*Record) error) (*Record, uint64, error) {
	return c.cas(ctx, id, func() (*Record, uint64, error) { return c.fresh(ctx, id, minRev) }, fn)
}

// updateAtLeader is update on records read from the bucket's leader
// (latest): when fn changes nothing, it decided on the newest record.
func (c *Cluster) updateAtLeader(ctx context.Context, id string, fn func(*Record) error) (*Record, uint64, error) {
	return c.cas(ctx, id, func() (*Record, uint64, error) { return c.latest(ctx, id) }, fn)
}

// cas reads session id's record with read, changes it with fn and writes
// it back compare-and-set, reading again when it changed meanwhile.
func (c *Cluster) cas(ctx context.Context, id string, read func() (*Record, uint64, error), fn func(*Record) error) (*Record, uint64, error) {
	for {
		r, rev, err := read()
		if err != nil {
			return nil, 0, err
		}
		if err := fn(r); err != nil {
			if errors.Is(err, session.ErrNoChange) {
				return r, rev, nil
			}
			return nil, 0, err
		}
		b, err := verbatim.Marshal(r)
		if err != nil {
			return nil, 0, err
		}
		var written uint64
		err = retry(ctx, func(ctx context.Context) error {
			var err error
			written, err = c.Sessions.Update(ctx, id, b, rev)
			return err
		})
		if err == nil {
			return r, written, nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) && !isWrongSequence(err) {
			return nil, 0, fmt.Errorf("cluster: session %s: %w", id, err)
		}
	}
}

// errStale: reads of a record stayed older than a revision known to
// have been written.
var errStale = errors.New("the replicas read stay behind")

// fresh reads session id's record at revision minRev or later, reading
// again for up to callTimeout while a replica behind answers.
func (c *Cluster) fresh(ctx context.Context, id string, minRev uint64) (*Record, uint64, error) {
	deadline := time.Now().Add(callTimeout)
	for {
		r, rev, err := c.Get(ctx, id)
		if err != nil || rev >= minRev {
			return r, rev, err
		}
		if time.Now().After(deadline) {
			return nil, 0, fmt.Errorf("cluster: session %s: revision %d read, %d written: %w", id, rev, minRev, errStale)
		}
		select {
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		case <-time.After(followEvery):
		}
	}
}

// isWrongSequence: the record changed since it was read.
func isWrongSequence(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence
}

// decodeJSON reads a record or a request, with the exact bytes of its
// strings (verbatim.Unmarshal).
func decodeJSON(data []byte, v any) error {
	_, err := verbatim.Unmarshal(data, v)
	return err
}
