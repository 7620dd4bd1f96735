package gittree

import (
	"context"
	"errors"
	"fmt"
)

// ErrBadBranch: a name git does not take for a branch.
var ErrBadBranch = errors.New("is not a valid branch name")

// CheckBranchName tells whether git takes name, as it is, for a new
// branch of dir's repository (git check-ref-format --branch); a name git
// would read as another one (a @{-N} previous branch) is refused too.
func (g *Git) CheckBranchName(ctx context.Context, dir, name string) error {
	out, err := g.run(ctx, dir, nil, nil, "check-ref-format", "--branch", name)
	if err != nil || line(out) != name {
		return fmt.Errorf("%q %w (git check-ref-format --branch refuses it)", name, ErrBadBranch)
	}
	return nil
}

// HasBranch reports whether dir's repository has a branch called branch.
func (g *Git) HasBranch(ctx context.Context, dir, branch string) bool {
	return g.hasBranch(ctx, dir, branch)
}

// InitSubmodules checks out the submodules of the work tree at dir, and
// theirs (git submodule update --init --recursive): git worktree add
// leaves their folders empty.
func (g *Git) InitSubmodules(ctx context.Context, dir string) error {
	_, err := g.run(ctx, dir, nil, nil, "submodule", "--quiet", "update", "--init", "--recursive")
	return err
}
