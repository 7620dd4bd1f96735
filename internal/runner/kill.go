package runner

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"syscall"
	"time"

	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/interrupt"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/tmux"
)

// Kill stops the given sessions: it leaves a kill request for each
// supervisor (so the end is recorded as killed, not failed, and the
// supervisor uses the same grace), sends SIGTERM to each program's process
// group, and SIGKILL to those still alive after grace. Pass descendants before their ancestors. Ended sessions are left
// as they are. It returns the final states.
func Kill(ctx context.Context, store *session.Store, ids []string, grace time.Duration, reason string) ([]*session.State, error) {
	var errs []error
	ms := grace.Milliseconds()
	req, err := json.Marshal(killRequest{Reason: reason, GraceMS: &ms})
	if err != nil {
		return nil, err
	}
	live := make([]*session.State, 0, len(ids))
	// Every request is in place before the first signal: a parent whose
	// child dies first must already know that it is being killed too.
	for _, id := range ids {
		st, err := store.Load(id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if st.Status.Ended() {
			continue
		}
		if err := fsutil.WriteFileAtomic(store.Path(id, session.KillRequest), req); err != nil {
			errs = append(errs, err)
			continue
		}
		live = append(live, st)
	}
	liveIDs := make([]string, len(live))
	for i, st := range live {
		signal(store, st, syscall.SIGTERM)
		liveIDs[i] = st.ID
	}
	waitEnded(ctx, store, liveIDs, grace)
	for _, id := range liveIDs {
		if st, err := store.Load(id); err == nil && !st.Status.Ended() {
			signal(store, st, syscall.SIGKILL)
		}
	}
	waitEnded(ctx, store, liveIDs, 3*time.Second)
	for _, st := range live {
		closePane(ctx, st)
	}
	out := make([]*session.State, 0, len(ids))
	for _, id := range ids {
		st, err := store.Load(id)
		if err != nil {
			continue
		}
		if !st.Status.Ended() {
			// The supervisor is gone or not responding: record it here,
			// interrupted or not.
			st, err = store.Update(context.WithoutCancel(ctx), id, func(cur *session.State) error {
				if cur.Status.Ended() {
					return session.ErrNoChange
				}
				cur.EndedAt = time.Now().UTC()
				cur.Reason = reason + " (its supervisor did not record the end)"
				cur.Failure = &session.Failure{Class: session.FailKilled, Message: cur.Reason}
				return cur.Move(session.Killed)
			})
			if err != nil {
				errs = append(errs, err)
				continue
			}
		}
		out = append(out, st)
	}
	return out, errors.Join(errs...)
}

// killRequest is what `csa kill` leaves in a session's directory for its
// supervisor: why, and the grace between SIGTERM and SIGKILL.
type killRequest struct {
	Reason  string `json:"reason"`
	GraceMS *int64 `json:"grace_ms,omitempty"`
}

// parseKillRequest reads a kill request; one left by an older csa is the
// bare reason.
func parseKillRequest(b []byte) *killRequest {
	var r killRequest
	if err := json.Unmarshal(b, &r); err != nil {
		r = killRequest{Reason: strings.TrimSpace(string(b))}
	}
	if r.Reason == "" {
		r.Reason = "killed by csa kill"
	}
	return &r
}

// grace is the grace asked for; nil leaves the run's own.
func (r *killRequest) grace() *time.Duration {
	if r.GraceMS == nil {
		return nil
	}
	d := time.Duration(*r.GraceMS) * time.Millisecond
	return &d
}

// signal reaches a session's program group. While its supervisor lives the
// group id is known to be the session's; otherwise only processes that
// carry the session's id in their environment are touched.
func signal(store *session.Store, st *session.State, sig syscall.Signal) {
	if st.PGID <= 0 {
		return
	}
	if store.SupervisorAlive(st.ID) {
		proc.SignalGroup(st.PGID, sig)
		return
	}
	for _, pid := range proc.TaggedMembers(st.PGID, csaenv.SessionID+"="+st.ID) {
		syscall.Kill(pid, sig)
	}
}

func waitEnded(ctx context.Context, store *session.Store, ids []string, d time.Duration) {
	deadline := time.Now().Add(d)
	for {
		pending := false
		for _, id := range ids {
			st, err := store.Load(id)
			if err == nil && !st.Status.Ended() && (store.SupervisorAlive(id) || procAlive(st)) {
				pending = true
				break
			}
		}
		if !pending || time.Now().After(deadline) || interrupt.Pause(ctx, 20*time.Millisecond) != nil {
			return
		}
	}
}

func procAlive(st *session.State) bool { return st.PID > 0 && proc.Alive(st.PID) }

// closePane ends an interactive session's tmux session, if it is still
// there (its wrapper normally closes it by exiting). The server itself is
// never killed: it exits by itself with its last session.
func closePane(ctx context.Context, st *session.State) {
	ix := st.Interactive
	if ix == nil {
		return
	}
	bin, err := tmux.Find()
	if err != nil {
		return
	}
	tmux.Server{Bin: bin, Socket: ix.Socket}.KillSession(ctx, ix.TmuxSession)
}
