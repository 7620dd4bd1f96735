package takeback

import (
	"context"
	"fmt"
	"strings"

	"github.com/csa-dev/csa/internal/gittree"
)

// Conflict is a change that does not merge onto a commit, made into a
// commit an agent can resolve: Onto's tree with the change merged in and
// git's conflict markers in Paths.
type Conflict struct {
	Change *Change
	Onto   string
	// Commit is the merge with markers, on Onto; never on a branch of
	// the caller's: a resolver's worktree starts from it.
	Commit string
	Paths  []string
	Sides  []Sides
}

// Conflicted makes the Conflict of merging c onto onto. Nil: c merges
// cleanly there (the branch may have moved since it was found blocked).
func Conflicted(ctx context.Context, g *gittree.Git, dir, onto string, c *Change) (*Conflict, error) {
	tree, paths, err := g.ThreeWay(ctx, dir, c.Snapshot, onto, c.Head)
	if err != nil || paths == nil {
		return nil, err
	}
	msg := fmt.Sprintf("csa: %s merged with conflicts to resolve (csa session %s)\n\nConflicting paths:\n  %s\n",
		c.Branch, c.SessionID, strings.Join(paths, "\n  "))
	commit, err := g.CommitTree(ctx, dir, tree, []string{onto}, msg, gittree.CSA.Env())
	if err != nil {
		return nil, err
	}
	sides, err := bothSides(ctx, g, dir, onto, c, paths)
	if err != nil {
		return nil, err
	}
	return &Conflict{Change: c, Onto: onto, Commit: commit, Paths: paths, Sides: sides}, nil
}

// Resolution is who resolved a Conflict and who reviewed the result.
type Resolution struct {
	SessionID string // the resolver's run
	Tool      string
	Review    string // the review's session
	Tree      string // the resolved tree: the resolver's head
}

// Resolved is the commit that merges the conflict's change onto Onto with
// the resolved tree, as strategy s would have merged it: a merge commit
// whose second parent is the run's own change (Merge), else one commit
// with the change's message (Squash, and Rebase: a resolved change is
// one commit). Trailers name the resolver and the review.
func (k *Conflict) Resolved(ctx context.Context, g *gittree.Git, dir string, s Strategy, r Resolution) (string, error) {
	c := k.Change
	author, err := g.Author(ctx, dir, c.Head)
	if err != nil {
		return "", err
	}
	trailers := fmt.Sprintf("CSA-Resolved-By: %s\nCSA-Reviewed-By: %s\n", r.SessionID, r.Review)
	if s != Merge {
		return g.CommitTree(ctx, dir, r.Tree, []string{k.Onto}, author.Message+trailers, author.Env())
	}
	parents := []string{k.Onto}
	side, paths, err := ownCommit(ctx, g, dir, c, author)
	if err != nil {
		return "", err
	}
	if paths == nil { // else the change needs the caller's uncommitted work: no second parent
		parents = append(parents, side)
	}
	msg := fmt.Sprintf("Merge %s (csa session %s)\n\nConflicts in %s resolved by csa session %s (%s), reviewed by csa session %s.\n\n%s",
		c.Branch, c.SessionID, strings.Join(k.Paths, ", "), r.SessionID, r.Tool, r.Review, trailers)
	return g.CommitTree(ctx, dir, r.Tree, parents, msg, nil)
}
