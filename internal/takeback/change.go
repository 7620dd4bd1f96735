// Package takeback is the policy of taking a run's change back into the
// caller's work tree: a run in a git worktree of its own (csa run
// --worktree) records what it changed as commits on its branch, from its
// Snapshot (the caller's HEAD plus uncommitted changes) to its Head.
// Diff, apply and merge take exactly that change, never the snapshot
// commit that carried the caller's own uncommitted work. Every git
// command goes through internal/gittree.
package takeback

import (
	"fmt"

	"github.com/csa-dev/csa/internal/session"
)

// Change is one run's change: Snapshot..Head on Branch of Repo.
type Change struct {
	SessionID string
	Repo      string
	Branch    string
	Base      string
	Snapshot  string
	Head      string
	// Tool and Model are the run's: who wrote the change.
	Tool, Model string
}

// NoChangeError: the session has no change to take back, yet or at all.
type NoChangeError struct {
	SessionID string
	Why       string
}

func (e *NoChangeError) Error() string {
	return fmt.Sprintf("session %s has no change to take back: %s", e.SessionID, e.Why)
}

// Of is the change a session recorded.
func Of(st *session.State) (*Change, error) {
	w := st.Workspace
	if w == nil {
		return nil, &NoChangeError{st.ID, "it ran in the caller's work tree, not in a worktree of its own (csa run --worktree)"}
	}
	if !w.Recorded || w.Head == "" {
		why := "its change is not recorded yet"
		if !st.Status.Ended() {
			why = "it has not ended (" + string(st.Status) + ")"
		}
		return nil, &NoChangeError{st.ID, why}
	}
	if w.Snapshot == "" {
		return nil, &NoChangeError{st.ID, "its record names no snapshot commit"}
	}
	return &Change{SessionID: st.ID, Repo: w.Repo, Branch: w.Branch, Base: w.Base, Snapshot: w.Snapshot, Head: w.Head,
		Tool: st.Tool, Model: st.Model}, nil
}
