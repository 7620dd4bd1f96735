package gc

import (
	"context"
	"errors"

	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/takeback"
)

// Branch is a worktree run's branch gc deleted (or would).
type Branch struct {
	Repo   string `json:"repo"`
	Branch string `json:"branch"`
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// collectBranches deletes the branches of ended worktree runs whose
// change is in their repository's HEAD, and with --branches those not
// merged too (takeback.Spent), and records it in the session. It runs
// before the sessions are collected: a session gc removes for its age
// still has its merged branch deleted.
func (o *Options) collectBranches(ctx context.Context, s *session.Store) ([]Branch, []error) {
	entries, err := s.List()
	if err != nil {
		return nil, []error{err}
	}
	g := &gittree.Git{Env: gittree.Clean(o.F.Environ())}
	var out []Branch
	var errs []error
	for _, e := range entries {
		if e.State == nil || e.State.Workspace == nil {
			continue
		}
		why, err := takeback.Spent(ctx, g, e.State, o.Branches)
		if err != nil || why == "" {
			errs = append(errs, err)
			continue
		}
		ws := e.State.Workspace
		out = append(out, Branch{Repo: ws.Repo, Branch: ws.Branch, ID: e.ID, Reason: why})
		if o.DryRun {
			continue
		}
		if _, err := s.Update(ctx, e.ID, func(cur *session.State) error {
			if cur.Workspace == nil || cur.Workspace.BranchDeleted {
				return session.ErrNoChange
			}
			if err := g.DeleteBranch(ctx, cur.Workspace.Repo, cur.Workspace.Branch); err != nil {
				return err
			}
			cur.Workspace.BranchDeleted = true
			return nil
		}); err != nil && !errors.Is(err, session.ErrNoChange) {
			errs = append(errs, err)
		}
	}
	return out, errs
}
