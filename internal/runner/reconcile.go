package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/events"
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/session"
)

// Reconcile notices a session whose supervising csa died (SIGKILL, OOM,
// reboot) before recording an end, marks it crashed and kills whatever of
// its process group is left. A supervisor that lived but could not record
// the end for lack of space left word of it (session.NoSpaceFile): that
// session is failed, for that reason. Ended sessions are returned
// unchanged; on a disk too full to record it, the end decided is returned
// unrecorded, for the next reader to record. The change of a worktree run
// (internal/workspace) its supervisor did not record is recorded here.
func Reconcile(ctx context.Context, store *session.Store, st *session.State, now time.Time) *session.State {
	if st.Status.Ended() {
		return recordLeft(ctx, store, st)
	}
	if store.SupervisorAlive(st.ID) || handingOver(st, now) {
		return st
	}
	var decided *session.State
	upd, err := store.Update(ctx, st.ID, func(cur *session.State) error {
		if cur.Status.Ended() || store.SupervisorAlive(cur.ID) {
			return session.ErrNoChange
		}
		decided = cur
		status, class := session.Crashed, session.FailCrashed
		msg := "the supervising csa died before the run ended"
		if cur.SupervisorPID > 0 {
			msg = fmt.Sprintf("the supervising csa (pid %d) died before the run ended", cur.SupervisorPID)
		}
		if why, ok := store.NoSpace(cur.ID); ok {
			status, class, msg = session.Failed, session.FailNoSpace, why
		}
		if cur.PGID > 0 {
			if n := proc.KillTagged(cur.PGID, csaenv.SessionID+"="+cur.ID); n > 0 {
				msg += fmt.Sprintf("; killed %d leftover processes", n)
			}
		}
		cur.EndedAt = now.UTC()
		cur.Reason = msg
		cur.Failure = &session.Failure{Class: class, Message: msg}
		return cur.Move(status)
	})
	if err != nil {
		if decided != nil && fsutil.NoSpace(err) {
			return decided // the truth, recorded by a reader once there is room
		}
		return st
	}
	if decided != nil {
		// What the supervisor left for its end is of no more use.
		store.ClearNoSpace(st.ID)
		events.GiveBackRoom(store.Path(st.ID, session.EventsFile))
	}
	closePane(ctx, upd)
	return recordLeft(ctx, store, upd)
}

// handingOver: an interactive session is pending, its lock free, while
// `csa run -i` hands it to the pane wrapper (bounded by StartPane's wait).
func handingOver(st *session.State, now time.Time) bool {
	return st.Interactive != nil && st.Status == session.Pending && now.Sub(st.CreatedAt) < 15*time.Second
}
