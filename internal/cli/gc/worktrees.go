package gc

import (
	"context"
	"os"
	"path/filepath"
	"sort"

	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/workspace"
)

// collectWorktrees removes the worktree folders (csa run --worktree) of
// ended sessions whose change is recorded on their branch (those kept
// with --keep-worktree included), and those whose session is gone, then
// prunes git's list of worktrees in every repository they belong to.
// Branches are never deleted. A folder whose change could not be recorded
// yet is kept: the agent's work is only there.
func (o *Options) collectWorktrees(ctx context.Context, s *session.Store) ([]Tree, []error) {
	root := workspace.Root(s)
	ents, err := os.ReadDir(root)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, []error{err}
	}
	g := &gittree.Git{Env: gittree.Clean(o.F.Environ())}
	repos := map[string]bool{}
	var out []Tree
	var errs []error
	for _, e := range ents {
		id, dir := e.Name(), filepath.Join(root, e.Name())
		if s.SupervisorAlive(id) {
			continue // a live run, or one being started (its state not written yet)
		}
		st, err := s.Load(id)
		if err != nil {
			if _, serr := os.Stat(s.Dir(id)); serr == nil {
				continue // unreadable for now: gc's orphan rule decides
			}
			out = append(out, Tree{Path: dir, Reason: "its session is gone"})
			if !o.DryRun {
				// Run in the worktree itself: its repository is not known.
				if g.RemoveWorktree(ctx, dir, dir) != nil {
					errs = append(errs, os.RemoveAll(dir))
				}
			}
			continue
		}
		ws := st.Workspace
		if ws != nil {
			repos[ws.Repo] = true
		}
		switch {
		case !st.Status.Ended():
			continue
		case ws != nil && !ws.Recorded:
			continue
		case ws == nil || ws.Dir == "":
			out = append(out, Tree{Path: dir, Reason: "its session recorded no worktree here"})
			if !o.DryRun {
				errs = append(errs, os.RemoveAll(dir))
			}
			continue
		}
		out = append(out, Tree{Path: dir, Reason: "its session ended; the change is on " + ws.Branch})
		if o.DryRun {
			continue
		}
		if _, err := s.Update(ctx, id, func(cur *session.State) error {
			if cur.Workspace == nil || cur.Workspace.Dir == "" {
				return session.ErrNoChange
			}
			return workspace.Remove(ctx, g, cur.Workspace)
		}); err != nil {
			errs = append(errs, err)
		}
	}
	if !o.DryRun {
		for repo := range repos {
			if _, err := os.Stat(repo); err == nil {
				errs = append(errs, g.PruneWorktrees(ctx, repo))
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, errs
}
