package gittree

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// Scratch is a worker's checkout of a caller's snapshot, in a directory
// of its own; Start is the tree the agent began from.
type Scratch struct {
	Dir   string
	Start string
}

// privateIndex is where the scratch tree's working state is recorded,
// apart from the index the agent itself may use.
func (s *Scratch) privateIndex() string { return filepath.Join(s.Dir, ".git", "csa-index") }

// Checkout makes dir (which must not exist) a checkout of commit, taken
// from source (a bundle file or a git URL), with diff applied, and
// records the tree the agent starts from.
func (g *Git) Checkout(ctx context.Context, dir, source, commit string, diff []byte) (*Scratch, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, err
	}
	if _, err := g.run(ctx, filepath.Dir(dir), nil, nil, "-c", "init.defaultBranch=main", "init", "--quiet", dir); err != nil {
		return nil, err
	}
	if err := g.fetch(ctx, dir, source, commit); err != nil {
		return nil, err
	}
	if _, err := g.run(ctx, dir, nil, nil, "checkout", "--quiet", "--detach", commit); err != nil {
		return nil, err
	}
	if len(diff) > 0 {
		if _, err := g.run(ctx, dir, diff, nil, "apply", "--binary", "--whitespace=nowarn", "-"); err != nil {
			return nil, fmt.Errorf("the caller's uncommitted changes do not apply to %s: %w", commit, err)
		}
	}
	s := &Scratch{Dir: dir}
	start, err := g.writeTree(ctx, dir, s.privateIndex())
	if err != nil {
		return nil, err
	}
	s.Start = start
	return s, nil
}

// fetch brings commit into dir from source: by its id, or, from a server
// that does not serve commits by id, with every branch and tag.
func (g *Git) fetch(ctx context.Context, dir, source, commit string) error {
	_, err := g.run(ctx, dir, nil, nil, "fetch", "--quiet", "--no-tags", source, commit)
	if err != nil {
		if _, err2 := g.run(ctx, dir, nil, nil, "fetch", "--quiet", source,
			"+refs/heads/*:refs/csa/heads/*", "+refs/tags/*:refs/csa/tags/*", "+HEAD:refs/csa/HEAD"); err2 != nil {
			return fmt.Errorf("fetch %s from %s: %w", commit, source, err)
		}
	}
	if _, err := g.run(ctx, dir, nil, nil, "cat-file", "-e", commit+"^{commit}"); err != nil {
		return fmt.Errorf("commit %s is not in %s (push it there first)", commit, source)
	}
	return nil
}

// Result is the agent's change: a binary diff from the tree it started
// from to the scratch tree's working state now (untracked files that are
// not ignored included), and the paths it touches.
func (g *Git) Result(ctx context.Context, s *Scratch) ([]byte, []string, error) {
	end, err := g.writeTree(ctx, s.Dir, s.privateIndex())
	if err != nil {
		return nil, nil, err
	}
	diff, err := g.run(ctx, s.Dir, nil, nil, append(diffArgs, s.Start, end)...)
	if err != nil {
		return nil, nil, err
	}
	names, err := g.run(ctx, s.Dir, nil, nil, "diff", "--name-only", "--no-renames", "-z", s.Start, end)
	if err != nil {
		return nil, nil, err
	}
	return diff, splitZ(names), nil
}

func splitZ(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != 0 {
			i++
		}
		out = append(out, string(b[:i]))
		if i < len(b) {
			i++
		}
		b = b[i:]
	}
	return out
}
