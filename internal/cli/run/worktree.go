package run

import (
	"context"
	"errors"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/workspace"
)

// worktree decides whether a run of tool works in a worktree of its own:
// --worktree, else the configuration, except for a run started inside
// another run's worktree, which works in that one. A run that asks for one
// outside a git work tree is refused before its session is made.
func (j *job) worktree(ctx context.Context, tool string) (bool, error) {
	o := j.o
	want := o.Worktree
	if !o.changed["worktree"] {
		want = (j.cfg.Defaults.Worktree || j.cfg.Tool(tool).Worktree) && !workspace.Inside(j.store, j.cwd)
	}
	switch {
	case !want && o.KeepWorktree:
		return false, cmdutil.Usagef("--keep-worktree goes with --worktree")
	case !want && o.WorktreeBase != "":
		return false, cmdutil.Usagef("--worktree-base goes with --worktree")
	case !want && o.Branch != "":
		return false, cmdutil.Usagef("--branch goes with --worktree")
	case !want && o.WorktreeSubmodules:
		return false, cmdutil.Usagef("--worktree-submodules goes with --worktree")
	case !want:
		return false, nil
	case o.Session != "":
		return false, cmdutil.Usagef("--worktree makes a new session: a continued session works where it did")
	}
	err := workspace.Check(ctx, &gittree.Git{Env: gittree.Clean(j.f.Environ())}, j.cwd)
	if errors.Is(err, gittree.ErrNotRepo) {
		return false, cmdutil.Usagef("--worktree: %s is not inside a git work tree (a worktree run needs a repository to branch from)", j.cwd)
	}
	return true, err
}

// base is the snapshot a --worktree-base run starts from: the commit the
// flag names in cwd's repository; one that names none is refused (exit 2)
// before the session is made.
func (j *job) base(ctx context.Context, cwd string) (*gittree.Snapshot, error) {
	snap, err := (&gittree.Git{Env: gittree.Clean(j.f.Environ())}).At(ctx, cwd, j.o.WorktreeBase)
	if errors.Is(err, gittree.ErrNoRef) {
		return nil, cmdutil.Usagef("--worktree-base: %v", err)
	}
	return snap, err
}

// worktreeOptions are what the worktree of a run of tool (configured by
// tc) in cwd asks for: its branch's name (branch) and whether the
// submodules are checked out (--worktree-submodules, else the
// configuration).
func (j *job) worktreeOptions(ctx context.Context, tool string, tc config.ToolConfig, cwd string) (workspace.Naming, bool, error) {
	sub := j.cfg.Defaults.WorktreeSubmodules || tc.WorktreeSubmodules
	if j.o.changed["worktree-submodules"] {
		sub = j.o.WorktreeSubmodules
	}
	n, err := j.branch(ctx, tool, tc, cwd)
	return n, sub, err
}

// branch names the worktree's branch: --branch, else the tool's
// template, else defaults.worktree_branch. A name git would not take,
// and --branch naming a branch that exists, are refused (exit 2) before
// the session is made; --branch is checked at a tier's first attempt
// only: the later ones find the name taken by it, and get the id
// appended.
func (j *job) branch(ctx context.Context, tool string, tc config.ToolConfig, cwd string) (workspace.Naming, error) {
	n := workspace.Naming{Exact: j.o.Branch, Template: j.cfg.Defaults.WorktreeBranch}
	key := "defaults.worktree_branch"
	if tc.WorktreeBranch != "" {
		n.Template, key = tc.WorktreeBranch, "tools."+tool+".worktree_branch"
	}
	if n.Exact != "" {
		if j.branchChecked {
			return n, nil
		}
		key = "--branch"
	}
	g := &gittree.Git{Env: gittree.Clean(j.f.Environ())}
	err := workspace.CheckBranch(ctx, g, cwd, n, workspace.BranchVars{ID: j.o.SessionID, Tool: tool, At: j.f.Now()})
	if errors.Is(err, gittree.ErrBadBranch) || errors.Is(err, gittree.ErrBranchExists) {
		return n, cmdutil.Usagef("%s: %v", key, err)
	}
	j.branchChecked = err == nil && n.Exact != ""
	return n, err
}
