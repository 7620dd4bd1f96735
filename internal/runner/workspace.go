package runner

import (
	"context"
	"os"

	"github.com/csa-dev/csa/internal/events"
	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/workspace"
)

// gitFor runs git in environ (csa's own when nil), without the variables
// that would point it at another repository.
func gitFor(environ []string) *gittree.Git {
	if environ == nil {
		environ = os.Environ()
	}
	return &gittree.Git{Env: gittree.Clean(environ)}
}

// makeWorkspace gives a new session the worktree req asks for and moves
// the run into it.
func makeWorkspace(ctx context.Context, store *session.Store, st *session.State, req *Request) error {
	if !req.Worktree {
		return nil
	}
	if req.Snapshot == nil {
		req.Snapshot = new(*gittree.Snapshot)
	}
	opt := workspace.Options{Naming: req.Branch, Keep: req.KeepWorktree, Submodules: req.WorktreeSubmodules}
	cwd, err := workspace.Create(ctx, gitFor(req.Environ), store, st, req.Prompt, req.Cwd, opt, req.Snapshot)
	if err != nil {
		return err
	}
	req.Cwd = cwd
	return nil
}

// dropWorkspace undoes makeWorkspace for a session that is not run.
func dropWorkspace(req Request, st *session.State) {
	if st.Workspace != nil {
		workspace.Discard(context.Background(), gitFor(req.Environ), st.Workspace)
	}
}

// recordWorkspace records what the run changed in its worktree, before
// the state that ends it, so that a reader seeing the end sees the
// change. It returns the workspace recorded, or nil when there is none or
// it could not be recorded (said in a warning; the next csa command that
// reconciles the session tries again).
func (l *life) recordWorkspace() *session.Workspace {
	if l.run.State.Workspace == nil || l.run.State.Workspace.Recorded {
		return nil
	}
	st := *l.run.State
	ws := *st.Workspace
	st.Workspace = &ws
	if err := workspace.Record(context.Background(), gitFor(l.s.BaseEnv), l.s.Store, &st); err != nil {
		l.ev.Emit(events.Warning, map[string]any{"message": err.Error()})
		return nil
	}
	return st.Workspace
}

// recordLeft records the change of an ended session whose supervisor is
// gone without recording it (it was killed, or could not).
func recordLeft(ctx context.Context, store *session.Store, st *session.State) *session.State {
	if !st.Status.Ended() || st.Workspace == nil || st.Workspace.Recorded || store.SupervisorAlive(st.ID) {
		return st
	}
	upd, err := store.Update(ctx, st.ID, func(cur *session.State) error {
		if cur.Workspace == nil || cur.Workspace.Recorded || store.SupervisorAlive(cur.ID) {
			return session.ErrNoChange
		}
		return workspace.Record(ctx, gitFor(nil), store, cur)
	})
	if err != nil {
		return st
	}
	return upd
}
