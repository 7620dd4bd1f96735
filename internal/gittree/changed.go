package gittree

import (
	"context"
	"slices"
)

// ChangedPaths are the paths the work tree at dir changes against commit
// since, relative to its top and sorted: tracked files changed, added or
// deleted (committed since or not), and untracked files that are not
// ignored. It reads the tree and writes nothing, the index included: it
// is cheap enough to ask a running agent's worktree several times a
// second.
func (g *Git) ChangedPaths(ctx context.Context, dir, since string) ([]string, error) {
	tracked, err := g.run(ctx, dir, nil, nil, "diff", "--name-only", "-z", "--no-renames", since, "--")
	if err != nil {
		return nil, err
	}
	untracked, err := g.run(ctx, dir, nil, nil, "ls-files", "-z", "--full-name", "--others", "--exclude-standard", "--", ":/")
	if err != nil {
		return nil, err
	}
	paths := append(splitZ(tracked), splitZ(untracked)...)
	slices.Sort(paths)
	return slices.Compact(paths), nil
}
