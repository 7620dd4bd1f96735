package takeback

import (
	"context"

	"github.com/csa-dev/csa/internal/gittree"
)

// Diff is the change as a binary diff git apply takes.
func Diff(ctx context.Context, g *gittree.Git, c *Change) ([]byte, error) {
	return g.Diff(ctx, c.Repo, c.Snapshot, c.Head)
}

// Stat is the change's size by path.
func Stat(ctx context.Context, g *gittree.Git, c *Change) ([]gittree.FileStat, error) {
	return g.Numstat(ctx, c.Repo, c.Snapshot, c.Head)
}

// StatText is git diff --stat of the change, as git prints it.
func StatText(ctx context.Context, g *gittree.Git, c *Change) ([]byte, error) {
	return g.DiffStat(ctx, c.Repo, c.Snapshot, c.Head)
}

// Apply applies the change to the work tree holding dir, all of it or
// nothing, leaving the index alone; with check it only tells whether it
// would. A change that does not apply is a *gittree.Conflict.
func Apply(ctx context.Context, g *gittree.Git, dir string, c *Change, check bool) ([]string, error) {
	diff, err := Diff(ctx, g, c)
	if err != nil {
		return nil, err
	}
	if len(diff) == 0 { // the run changed nothing: nothing to apply, nothing to conflict
		return []string{}, nil
	}
	return g.Apply(ctx, dir, diff, check)
}
