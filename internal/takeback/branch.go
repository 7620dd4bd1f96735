package takeback

import (
	"context"

	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/session"
)

// Spent says whether the branch of an ended worktree run may go, and why:
// its change is in the repository's HEAD (merged, by any strategy, or
// made there by other means), or anyway when unmerged is set (csa gc
// --branches). A branch that moved past the recorded head holds commits
// csa did not record, and a worktree that is still there has it checked
// out: both stay. "" with no error: it stays.
func Spent(ctx context.Context, g *gittree.Git, st *session.State, unmerged bool) (string, error) {
	ws := st.Workspace
	if ws == nil || !st.Status.Ended() || !ws.Recorded || ws.BranchDeleted || ws.Dir != "" || ws.Branch == "" {
		return "", nil
	}
	at, err := g.BranchHead(ctx, ws.Repo, ws.Branch)
	if err != nil || at != ws.Head {
		return "", nil // gone already, or moved on: not csa's to delete
	}
	c, err := Of(st)
	if err != nil {
		return "", nil
	}
	in, err := In(ctx, g, ws.Repo, "HEAD", c)
	switch {
	case err != nil:
		return "", err
	case in:
		return "its change is in " + ws.Repo + "'s HEAD", nil
	case unmerged:
		return "its change is not merged (--branches)", nil
	}
	return "", nil
}
