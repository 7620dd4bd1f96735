package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
)

// controlPrefix: each worker answers requests about the runs it holds on
// csa.ctl.WORKER (core NATS request and reply, nothing stored: a request
// to a worker that is gone has no responder).
const controlPrefix = "csa.ctl."

// ControlSubject is the subject worker listens on. Characters a subject
// token cannot hold are replaced.
func ControlSubject(worker string) string {
	return controlPrefix + strings.Map(func(r rune) rune {
		switch r {
		case '.', '*', '>', ' ', '\t', '\r', '\n':
			return '_'
		}
		return r
	}, worker)
}

// KillReason is the reason a remote kill records.
const KillReason = "killed by csa kill"

// controlRequest asks a worker to act on one of its runs.
type controlRequest struct {
	Op string `json:"op"` // "kill"
	ID string `json:"id"`
	// GraceMS is the grace between SIGTERM and SIGKILL; nil: the
	// worker's configured defaults.kill_grace.
	GraceMS *int64 `json:"grace_ms,omitempty"`
}

type controlReply struct {
	State session.Status `json:"state,omitempty"`
	Error string         `json:"error,omitempty"`
}

// held is one run a worker has taken: what a kill needs to reach it.
type held struct {
	attempt int
	localID string
	store   *session.Store
	// kill: a kill arrived; a run not started yet must not start, one
	// starting is killed as soon as it has.
	kill  bool
	grace *time.Duration
}

// controls tracks the worker's runs for the control requests.
type controls struct {
	mu   sync.Mutex
	runs map[string]*held
}

// hold records run id's attempt as this worker's; it reports false, and
// the attempt held, when it holds the run already.
func (c *controls) hold(id string, attempt int) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.runs == nil {
		c.runs = map[string]*held{}
	}
	if h := c.runs[id]; h != nil {
		return h.attempt, false
	}
	c.runs[id] = &held{attempt: attempt}
	return attempt, true
}

func (c *controls) release(id string) {
	c.mu.Lock()
	delete(c.runs, id)
	c.mu.Unlock()
}

// killWanted reports whether a kill for id arrived, and its grace.
func (c *controls) killWanted(id string) (bool, *time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h := c.runs[id]; h != nil {
		return h.kill, h.grace
	}
	return false, nil
}

// started records the local session of id.
func (c *controls) started(id, localID string, store *session.Store) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h := c.runs[id]; h != nil {
		h.localID, h.store = localID, store
	}
}

// serveControl answers control requests until ctx ends.
func (w *Worker) serveControl(ctx context.Context) (*nats.Subscription, error) {
	return w.C.NC.Subscribe(ControlSubject(w.ID), func(m *nats.Msg) {
		var req controlRequest
		if err := json.Unmarshal(m.Data, &req); err != nil || req.ID == "" || req.Op != "kill" {
			respond(m, controlReply{Error: fmt.Sprintf("malformed control request %q", m.Data)})
			return
		}
		go func() { respond(m, w.killHeld(ctx, req)) }()
	})
}

func respond(m *nats.Msg, r controlReply) {
	b, _ := json.Marshal(r)
	m.Respond(b)
}

// killHeld stops run req.ID as `csa kill` does on this machine: its
// local session and that session's local descendants, deepest first,
// SIGTERM then SIGKILL after the grace; then it records the end.
func (w *Worker) killHeld(ctx context.Context, req controlRequest) controlReply {
	var grace *time.Duration
	if req.GraceMS != nil {
		g := time.Duration(*req.GraceMS) * time.Millisecond
		grace = &g
	}
	w.ctl.mu.Lock()
	h := w.ctl.runs[req.ID]
	if h != nil && h.localID == "" {
		// Claimed, not started: run() sees the mark before it starts or
		// as soon as it has.
		h.kill, h.grace = true, grace
	}
	var localID string
	var store *session.Store
	if h != nil {
		localID, store = h.localID, h.store
	}
	w.ctl.mu.Unlock()
	if h == nil {
		// Not held here (any more): the record says how it ended.
		r, _, err := w.C.Get(ctx, req.ID)
		if err != nil {
			return controlReply{Error: err.Error()}
		}
		if !r.Status.Ended() {
			return controlReply{State: r.Status, Error: fmt.Sprintf("worker %s does not hold session %s", w.ID, req.ID)}
		}
		return controlReply{State: r.Status}
	}
	if localID == "" {
		return controlReply{State: session.Pending}
	}
	st, err := w.killLocal(ctx, req.ID, localID, store, grace)
	if err != nil {
		return controlReply{Error: err.Error()}
	}
	return controlReply{State: st}
}

// killLocal kills local session localID of run id with its local
// descendants.
func (w *Worker) killLocal(ctx context.Context, id, localID string, store *session.Store, grace *time.Duration) (session.Status, error) {
	g := w.Local.Config.Defaults.KillGrace.Std()
	if grace != nil {
		g = *grace
	}
	targets, err := store.KillOrder([]string{localID})
	if err != nil {
		return "", err
	}
	w.logf("worker %s: killing %s (local %s, %d sessions, grace %v)", w.ID, id, localID, len(targets), g)
	states, kerr := runner.Kill(ctx, store, targets, g, KillReason)
	var last *session.State
	for _, st := range states {
		if st.ID == localID {
			last = st
		}
	}
	if last == nil {
		if kerr == nil {
			kerr = fmt.Errorf("local session %s: no state after the kill", localID)
		}
		return "", kerr
	}
	// The run's follower records the end, after the last of its output.
	return last.Status, kerr
}

// markKilled ends a run that never started, killed.
func (w *Worker) markKilled(ctx context.Context, id string) {
	w.C.Update(ctx, id, func(r *Record) error {
		if r.Status.Ended() {
			return session.ErrNoChange
		}
		endKilled(r, w.Now())
		return nil
	})
}

func endKilled(r *Record, now time.Time) {
	r.Status = session.Killed
	r.EndedAt = now.UTC()
	r.Reason = KillReason
	r.Failure = &session.Failure{Class: session.FailKilled, Message: KillReason}
}

// ErrWorkerGone: the worker holding a session does not answer.
var ErrWorkerGone = errors.New("the worker does not answer")

// Kill stops remote session id. A session no worker has taken yet is
// marked killed and never starts (the worker that fetches its request
// drops it); a taken one is stopped by its worker, as `csa kill` there
// would (descendants on that machine first). It returns the record once
// it has ended, or an error after within. grace nil is the worker's
// configured kill grace.
func (c *Cluster) Kill(ctx context.Context, id string, grace *time.Duration, now func() time.Time, within time.Duration) (*Record, error) {
	rec, err := c.Update(ctx, id, func(r *Record) error {
		switch {
		case r.Status.Ended():
			return session.ErrNoChange
		case r.Status == session.Pending && r.Remote.Worker == "":
			endKilled(r, now())
		case !r.Remote.KillRequestedAt.IsZero():
			return session.ErrNoChange
		default:
			r.Remote.KillRequestedAt = now().UTC()
			if grace != nil {
				ms := grace.Milliseconds()
				r.Remote.KillGraceMS = &ms
			}
		}
		return nil
	})
	if err != nil || rec.Status.Ended() {
		return rec, err
	}
	req := controlRequest{Op: "kill", ID: id}
	if grace != nil {
		ms := grace.Milliseconds()
		req.GraceMS = &ms
	}
	body, _ := json.Marshal(req)
	deadline := time.Now().Add(within)
	rctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	m, err := c.NC.RequestWithContext(rctx, ControlSubject(rec.Remote.Worker), body)
	if errors.Is(err, nats.ErrNoResponders) {
		return rec, fmt.Errorf("session %s: worker %s: %w (csa wait reports it crashed once the worker is lost)", id, rec.Remote.Worker, ErrWorkerGone)
	}
	if err != nil && ctx.Err() == nil {
		// Not answered (lost on the way, or the answer was): the worker
		// also reads the request from the record, within a second, and
		// the record tells whether the run ended.
		if r, werr := c.waitEnded(ctx, id, deadline, within); werr == nil {
			return r, nil
		}
	}
	if err != nil {
		return rec, fmt.Errorf("session %s: worker %s: %w", id, rec.Remote.Worker, err)
	}
	var rep controlReply
	if err := json.Unmarshal(m.Data, &rep); err != nil {
		return rec, fmt.Errorf("session %s: worker %s answered %q", id, rec.Remote.Worker, m.Data)
	}
	if rep.Error != "" {
		return rec, fmt.Errorf("session %s: worker %s: %s", id, rec.Remote.Worker, rep.Error)
	}
	// The local session has ended; its follower records the end within
	// its next look (a run between its claim and its start ends as soon
	// as it starts).
	return c.waitEnded(ctx, id, deadline, within)
}

// waitEnded waits until session id's record has ended, or deadline.
func (c *Cluster) waitEnded(ctx context.Context, id string, deadline time.Time, within time.Duration) (*Record, error) {
	for {
		r, _, err := c.Get(ctx, id)
		if err != nil || r.Status.Ended() {
			return r, err
		}
		if time.Now().After(deadline) {
			return r, fmt.Errorf("session %s: still %s %v after the kill", id, r.Status, within)
		}
		select {
		case <-ctx.Done():
			return r, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
