package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/session"
)

// Reconcile notices a session whose supervising csa died (SIGKILL, OOM,
// reboot) before recording an end, marks it crashed and kills whatever of
// its process group is left. Ended sessions are returned unchanged.
func Reconcile(ctx context.Context, store *session.Store, st *session.State, now time.Time) *session.State {
	if st.Status.Ended() || store.SupervisorAlive(st.ID) || handingOver(st, now) {
		return st
	}
	upd, err := store.Update(ctx, st.ID, func(cur *session.State) error {
		if cur.Status.Ended() || store.SupervisorAlive(cur.ID) {
			return session.ErrNoChange
		}
		msg := "the supervising csa died before the run ended"
		if cur.SupervisorPID > 0 {
			msg = fmt.Sprintf("the supervising csa (pid %d) died before the run ended", cur.SupervisorPID)
		}
		if cur.PGID > 0 {
			if n := proc.KillTagged(cur.PGID, EnvSessionID+"="+cur.ID); n > 0 {
				msg += fmt.Sprintf("; killed %d leftover processes", n)
			}
		}
		cur.EndedAt = now.UTC()
		cur.Reason = msg
		cur.Failure = &session.Failure{Class: session.FailCrashed, Message: msg}
		return cur.Move(session.Crashed)
	})
	if err != nil {
		return st
	}
	closePane(ctx, upd)
	return upd
}

// handingOver: an interactive session is pending, its lock free, while
// `csa run -i` hands it to the pane wrapper (bounded by StartPane's wait).
func handingOver(st *session.State, now time.Time) bool {
	return st.Interactive != nil && st.Status == session.Pending && now.Sub(st.CreatedAt) < 15*time.Second
}
