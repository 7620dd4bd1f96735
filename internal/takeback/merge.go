package takeback

import (
	"context"
	"fmt"

	"github.com/csa-dev/csa/internal/gittree"
)

// Strategy is how a change becomes commits of the current branch.
type Strategy string

// The strategies: the closed set csa merge offers.
const (
	// Merge: a merge commit whose second parent is the run's change on
	// the caller's HEAD at the start (its Head itself when the caller had
	// no uncommitted changes).
	Merge Strategy = "merge"
	// Squash: the change as one new commit on the current branch.
	Squash Strategy = "squash"
	// Rebase: each of the run's commits replayed on the current branch.
	Rebase Strategy = "rebase"
)

// Status of one change in a merge.
const (
	Merged  = "merged"
	Blocked = "blocked"
)

// Result is what became of one change.
type Result struct {
	Change *Change
	Status string // Merged or Blocked
	// Commit is the commit the change made on the branch (Merged);
	// Paths are those that conflict with the result so far (Blocked),
	// and Sides what each side did to them, in the same order.
	Commit string
	Paths  []string
	Sides  []Sides
}

// Sides is one conflicting path of a blocked change: its hunks in the
// result so far (Ours) and in the run's change (Theirs), both from the
// run's snapshot, the state the two sides started from.
type Sides struct {
	Ours, Theirs gittree.PathHunks
}

// Outcome is a merge of one or several changes.
type Outcome struct {
	Results []Result
	// From is the current branch's commit before, To after (equal when
	// nothing was merged).
	From, To string
}

// Blocked reports whether any change could not be merged.
func (o *Outcome) Blocked() bool {
	for _, r := range o.Results {
		if r.Status == Blocked {
			return true
		}
	}
	return false
}

// MergeQueue merges changes into the current branch of the work tree
// holding dir, one at a time in the order given: each is merged, with
// git merge-tree, into the result of those before it, without touching
// a work tree; a change that conflicts is Blocked with its paths and
// left out. Then the branch moves to the result in one step, as git
// merge --ff-only moves it: if local changes would be overwritten that
// is a *gittree.DirtyError and nothing is changed.
func MergeQueue(ctx context.Context, g *gittree.Git, dir string, changes []*Change, s Strategy) (*Outcome, error) {
	head, err := g.Verify(ctx, dir, "HEAD")
	if err != nil {
		return nil, err
	}
	o := &Outcome{From: head, To: head}
	for _, c := range changes {
		commit, paths, err := MergeOnto(ctx, g, dir, o.To, c, s)
		if err != nil {
			return nil, fmt.Errorf("session %s: %w", c.SessionID, err)
		}
		if paths != nil {
			sides, err := bothSides(ctx, g, dir, o.To, c, paths)
			if err != nil {
				return nil, fmt.Errorf("session %s: %w", c.SessionID, err)
			}
			o.Results = append(o.Results, Result{Change: c, Status: Blocked, Paths: paths, Sides: sides})
			continue
		}
		o.Results = append(o.Results, Result{Change: c, Status: Merged, Commit: commit})
		o.To = commit
	}
	if o.To != o.From {
		if err := g.FastForward(ctx, dir, o.To); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// bothSides is what the result so far (ours) and c (theirs) did to each
// of paths since c's snapshot.
func bothSides(ctx context.Context, g *gittree.Git, dir, ours string, c *Change, paths []string) ([]Sides, error) {
	sides := make([]Sides, 0, len(paths))
	for _, p := range paths {
		o, err := g.Hunks(ctx, dir, c.Snapshot, ours, p)
		if err != nil {
			return nil, err
		}
		t, err := g.Hunks(ctx, dir, c.Snapshot, c.Head, p)
		if err != nil {
			return nil, err
		}
		sides = append(sides, Sides{Ours: o, Theirs: t})
	}
	return sides, nil
}

// MergeOnto makes the commit that merges c onto onto with strategy s,
// touching no work tree or ref, or returns the paths that conflict
// (non-nil).
func MergeOnto(ctx context.Context, g *gittree.Git, dir, onto string, c *Change, s Strategy) (string, []string, error) {
	if c.Head == c.Snapshot { // the run changed nothing
		return onto, nil, nil
	}
	author, err := g.Author(ctx, dir, c.Head)
	if err != nil {
		return "", nil, err
	}
	switch s {
	case Squash:
		tree, paths, err := g.ThreeWay(ctx, dir, c.Snapshot, onto, c.Head)
		if err != nil || paths != nil {
			return "", paths, err
		}
		commit, err := g.CommitTree(ctx, dir, tree, []string{onto}, author.Message, author.Env())
		return commit, nil, err
	case Rebase:
		return replay(ctx, g, dir, onto, c)
	case Merge:
		tree, paths, err := g.ThreeWay(ctx, dir, c.Snapshot, onto, c.Head)
		if err != nil || paths != nil {
			return "", paths, err
		}
		side, paths, err := ownCommit(ctx, g, dir, c, author)
		if err != nil || paths != nil {
			return "", paths, err
		}
		msg := fmt.Sprintf("Merge %s (csa session %s)\n", c.Branch, c.SessionID)
		commit, err := g.CommitTree(ctx, dir, tree, []string{onto, side}, msg, nil)
		return commit, nil, err
	}
	return "", nil, fmt.Errorf("unknown merge strategy %q", s)
}

// ownCommit is the run's change alone as a commit on Base: Head itself
// when the snapshot is Base (the caller had nothing uncommitted),
// otherwise Snapshot..Head replayed on Base, so that the caller's
// uncommitted work the snapshot carried never enters the branch's
// history. Paths: the change depends on that work (it conflicts on Base).
func ownCommit(ctx context.Context, g *gittree.Git, dir string, c *Change, author *gittree.Authorship) (string, []string, error) {
	if c.Snapshot == c.Base {
		return c.Head, nil, nil
	}
	tree, paths, err := g.ThreeWay(ctx, dir, c.Snapshot, c.Base, c.Head)
	if err != nil || paths != nil {
		return "", paths, err
	}
	commit, err := g.CommitTree(ctx, dir, tree, []string{c.Base}, author.Message, author.Env())
	return commit, nil, err
}

// replay replays each commit of Snapshot..Head onto onto, keeping its
// author and message.
func replay(ctx context.Context, g *gittree.Git, dir, onto string, c *Change) (string, []string, error) {
	commits, err := g.Commits(ctx, dir, c.Snapshot, c.Head)
	if err != nil {
		return "", nil, err
	}
	parent := c.Snapshot
	for _, commit := range commits {
		tree, paths, err := g.ThreeWay(ctx, dir, parent, onto, commit)
		if err != nil || paths != nil {
			return "", paths, err
		}
		author, err := g.Author(ctx, dir, commit)
		if err != nil {
			return "", nil, err
		}
		if onto, err = g.CommitTree(ctx, dir, tree, []string{onto}, author.Message, author.Env()); err != nil {
			return "", nil, err
		}
		parent = commit
	}
	return onto, nil, nil
}

// In reports whether c's change is in commit already: merging it there
// would change nothing (whatever the strategy that took it in, or none:
// the same edit made by hand counts too). A run that changed nothing is
// in every commit.
func In(ctx context.Context, g *gittree.Git, dir, commit string, c *Change) (bool, error) {
	if c.Head == c.Snapshot {
		return true, nil
	}
	tree, paths, err := g.ThreeWay(ctx, dir, c.Snapshot, commit, c.Head)
	if err != nil || paths != nil {
		return false, err
	}
	have, err := g.Tree(ctx, dir, commit)
	return err == nil && have == tree, err
}
