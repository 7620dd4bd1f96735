package gittree

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// Identity names the author and committer of the commits csa makes, so
// that they never depend on (or fail for lack of) the user's own.
type Identity struct{ Name, Email string }

// CSA is csa's own identity: the author of the commits that record a
// run's change or carry a merge to resolve.
var CSA = Identity{Name: "csa", Email: "csa@localhost"}

// Env is the environment that makes git author and commit as id.
func (id Identity) Env() []string {
	return []string{"GIT_AUTHOR_NAME=" + id.Name, "GIT_AUTHOR_EMAIL=" + id.Email,
		"GIT_COMMITTER_NAME=" + id.Name, "GIT_COMMITTER_EMAIL=" + id.Email}
}

// commit records tree on top of parent with message, by who (git
// commit-tree signs nothing unless asked, whatever commit.gpgSign says).
func (g *Git) commit(ctx context.Context, dir, tree, parent string, message []byte, who Identity) (string, error) {
	return g.CommitTree(ctx, dir, tree, []string{parent}, string(message), who.Env())
}

// ErrBranchExists: every branch name offered is taken.
var ErrBranchExists = errors.New("the branch exists already")

// AddWorktree makes dir (which must not exist) a linked worktree of the
// repository snap was taken from, sharing its objects, on a new branch:
// the first of branches not taken. The branch holds snap: its commit,
// plus a commit of its uncommitted changes (with message) when there are
// any. It returns the branch and the commit checked out.
func (g *Git) AddWorktree(ctx context.Context, snap *Snapshot, dir string, branches []string, message []byte, who Identity) (branch, start string, err error) {
	start = snap.Commit
	if len(snap.Diff) > 0 {
		if start, err = g.commit(ctx, snap.Root, snap.Tree, snap.Commit, message, who); err != nil {
			return "", "", err
		}
	}
	for _, b := range branches {
		_, err = g.run(ctx, snap.Root, nil, nil, "worktree", "add", "--quiet", "-b", b, dir, start)
		if err == nil {
			return b, start, nil
		}
		if !g.hasBranch(ctx, snap.Root, b) {
			return "", "", err
		}
	}
	return "", "", fmt.Errorf("%w: %v", ErrBranchExists, branches)
}

func (g *Git) hasBranch(ctx context.Context, repo, branch string) bool {
	_, err := g.run(ctx, repo, nil, nil, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	return err == nil
}

// BranchHead is the commit branch points at.
func (g *Git) BranchHead(ctx context.Context, repo, branch string) (string, error) {
	out, err := g.run(ctx, repo, nil, nil, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("branch %s: %w", branch, err)
	}
	return line(out), nil
}

// RecordWorktree commits the working state of the worktree at dir
// (untracked files that are not ignored included, whatever its own index
// says) on top of its HEAD with message, when it differs from HEAD, and
// points branch at the result, which it returns. The worktree's index and
// files are left as they are. Recording twice records nothing new.
func (g *Git) RecordWorktree(ctx context.Context, dir, branch string, message []byte, who Identity) (string, error) {
	s, err := g.Take(ctx, dir)
	if err != nil {
		return "", err
	}
	head := s.Commit
	if len(s.Diff) > 0 {
		if head, err = g.commit(ctx, s.Root, s.Tree, s.Commit, message, who); err != nil {
			return "", err
		}
	}
	if _, err := g.run(ctx, s.Root, nil, nil, "update-ref", "-m", "csa: record the run's change", "refs/heads/"+branch, head); err != nil {
		return "", err
	}
	return head, nil
}

// RemoveWorktree removes the worktree at dir of repo, whatever it holds
// (its change is recorded); a directory already gone is only pruned from
// git's list.
func (g *Git) RemoveWorktree(ctx context.Context, repo, dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return g.PruneWorktrees(ctx, repo)
	}
	_, err := g.run(ctx, repo, nil, nil, "worktree", "remove", "--force", "--force", dir)
	return err
}

// PruneWorktrees drops from repo's list the worktrees whose directory is
// gone. Branches are never touched.
func (g *Git) PruneWorktrees(ctx context.Context, repo string) error {
	_, err := g.run(ctx, repo, nil, nil, "worktree", "prune")
	return err
}

// Stat is the size of a change.
type Stat struct{ Files, Insertions, Deletions int }

// ChangeSize is the size of the change from commit a to commit b: the
// paths it touches (a rename is two) and their lines added and deleted (a
// binary file has none).
func (g *Git) ChangeSize(ctx context.Context, repo, a, b string) (Stat, error) {
	files, err := g.Numstat(ctx, repo, a, b)
	st := Stat{Files: len(files)}
	for _, f := range files {
		st.Insertions += f.Added
		st.Deletions += f.Deleted
	}
	return st, err
}

// DeleteBranch deletes branch of repo, merged or not: only for a branch
// csa has just made and nothing used.
func (g *Git) DeleteBranch(ctx context.Context, repo, branch string) error {
	_, err := g.run(ctx, repo, nil, nil, "branch", "--quiet", "-D", branch)
	return err
}
