package gittree

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// This file is git on commits already in a repository: a run's change
// recorded on its branch (csa run --worktree), diffed, replayed and
// merged without touching the work tree until the result is whole.

// Verify is the commit id rev names in the repository holding dir.
func (g *Git) Verify(ctx context.Context, dir, rev string) (string, error) {
	out, err := g.run(ctx, dir, nil, nil, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%s is not a commit of the repository holding %s", rev, dir)
	}
	return line(out), nil
}

// Tree is the id of the tree of commit rev.
func (g *Git) Tree(ctx context.Context, dir, rev string) (string, error) {
	out, err := g.run(ctx, dir, nil, nil, "rev-parse", "--verify", "--quiet", rev+"^{tree}")
	if err != nil {
		return "", fmt.Errorf("%s is not a commit of the repository holding %s", rev, dir)
	}
	return line(out), nil
}

// Diff is the binary diff from commit from to commit to, which git
// apply takes.
func (g *Git) Diff(ctx context.Context, dir, from, to string) ([]byte, error) {
	return g.run(ctx, dir, nil, nil, append(append([]string{}, diffArgs...), from, to, "--")...)
}

// DiffStat is git diff --stat from..to, as git prints it.
func (g *Git) DiffStat(ctx context.Context, dir, from, to string) ([]byte, error) {
	return g.run(ctx, dir, nil, nil, "diff", "--stat", "--no-color", "--no-ext-diff", from, to, "--")
}

// FileStat is one path of a diff: lines added and deleted, or Binary.
type FileStat struct {
	Path    string
	Added   int
	Deleted int
	Binary  bool
}

// Numstat is the paths from..to changes, with their sizes (renames are
// not followed: a moved file is a deletion and an addition).
func (g *Git) Numstat(ctx context.Context, dir, from, to string) ([]FileStat, error) {
	out, err := g.run(ctx, dir, nil, nil, "diff", "--numstat", "-z", "--no-renames", from, to, "--")
	if err != nil {
		return nil, err
	}
	var stats []FileStat
	for _, rec := range splitZ(out) {
		parts := strings.SplitN(rec, "\t", 3)
		if len(parts) < 3 {
			continue
		}
		s := FileStat{Path: parts[2], Binary: parts[0] == "-"}
		s.Added, _ = strconv.Atoi(parts[0])
		s.Deleted, _ = strconv.Atoi(parts[1])
		stats = append(stats, s)
	}
	return stats, nil
}

// Commits are the commits from..to, oldest first.
func (g *Git) Commits(ctx context.Context, dir, from, to string) ([]string, error) {
	out, err := g.run(ctx, dir, nil, nil, "rev-list", "--reverse", from+".."+to)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// Authorship is who wrote a commit and what it says, to make another
// commit of the same change.
type Authorship struct {
	Name, Email, Date, Message string
}

// Env is the environment that makes git commit-tree keep the author.
func (a *Authorship) Env() []string {
	return []string{"GIT_AUTHOR_NAME=" + a.Name, "GIT_AUTHOR_EMAIL=" + a.Email, "GIT_AUTHOR_DATE=" + a.Date}
}

// Author reads commit's author and message.
func (g *Git) Author(ctx context.Context, dir, commit string) (*Authorship, error) {
	out, err := g.run(ctx, dir, nil, nil, "log", "-1", "--format=%an%x00%ae%x00%ad%x00%B", "--date=raw", commit)
	if err != nil {
		return nil, err
	}
	f := strings.SplitN(string(out), "\x00", 4)
	if len(f) < 4 {
		return nil, fmt.Errorf("git log of %s: unexpected output", commit)
	}
	return &Authorship{Name: f[0], Email: f[1], Date: f[2], Message: strings.TrimRight(f[3], "\n") + "\n"}, nil
}

// CommitTree makes a commit of tree with parents and message; env adds
// to git's environment (an author).
func (g *Git) CommitTree(ctx context.Context, dir, tree string, parents []string, message string, env []string) (string, error) {
	args := []string{"commit-tree", tree}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	out, err := g.run(ctx, dir, []byte(message), env, append(args, "-F", "-")...)
	if err != nil {
		return "", err
	}
	return line(out), nil
}

// scratchAuthor signs the commits csa makes only to hand git merge-tree
// a merge base: they are never referenced.
var scratchAuthor = []string{"GIT_AUTHOR_NAME=csa", "GIT_AUTHOR_EMAIL=csa@localhost",
	"GIT_COMMITTER_NAME=csa", "GIT_COMMITTER_EMAIL=csa@localhost"}

// ThreeWay merges the change base..theirs into ours (each a commit or a
// tree) without touching any work tree or ref, and returns the tree of
// the result and, when they conflict, the paths that do (non-nil): the
// tree then holds git's conflict markers in them. git merge-tree finds the merge
// base from history, and a run's change starts from a commit that is not
// in ours' history (the caller's snapshot): two commits on a common
// parent of base's tree make base the merge base (git merge-tree
// --merge-base needs git 2.40).
func (g *Git) ThreeWay(ctx context.Context, dir, base, ours, theirs string) (tree string, conflicts []string, err error) {
	root, err := g.CommitTree(ctx, dir, base+"^{tree}", nil, "csa: merge base\n", scratchAuthor)
	if err != nil {
		return "", nil, err
	}
	o, err := g.CommitTree(ctx, dir, ours+"^{tree}", []string{root}, "csa: ours\n", scratchAuthor)
	if err != nil {
		return "", nil, err
	}
	t, err := g.CommitTree(ctx, dir, theirs+"^{tree}", []string{root}, "csa: theirs\n", scratchAuthor)
	if err != nil {
		return "", nil, err
	}
	out, err := g.run(ctx, dir, nil, nil, "merge-tree", "--write-tree", "-z", "--name-only", "--no-messages", o, t)
	var ge *gitError
	if err != nil && !(errors.As(err, &ge) && ge.code == 1) {
		return "", nil, err
	}
	f := splitZ(out)
	if len(f) == 0 {
		return "", nil, fmt.Errorf("git merge-tree: no tree in its output")
	}
	if err == nil {
		return f[0], nil, nil
	}
	conflicts = []string{} // non-nil: a conflict
	for _, p := range f[1:] {
		if p != "" {
			conflicts = append(conflicts, p)
		}
	}
	return f[0], conflicts, nil
}

// DirtyError: the work tree has changes git would not overwrite; nothing
// was changed.
type DirtyError struct {
	Paths  []string
	Detail string // git's own words
}

func (e *DirtyError) Error() string {
	return fmt.Sprintf("local changes would be overwritten (commit or stash them first): %s", strings.Join(e.Paths, ", "))
}

// FastForward moves the current branch of the work tree holding dir (or
// a detached HEAD) to commit, a descendant of HEAD, updating the index
// and the work tree as git merge --ff-only does, and refusing as it does
// when local changes would be overwritten (a *DirtyError).
func (g *Git) FastForward(ctx context.Context, dir, commit string) error {
	_, err := g.run(ctx, dir, nil, nil, "merge", "--ff-only", "--quiet", "--no-edit", commit)
	var ge *gitError
	if errors.As(err, &ge) && strings.Contains(ge.stderr, "would be overwritten") {
		return &DirtyError{Paths: indentedPaths(ge.stderr), Detail: strings.TrimSpace(ge.stderr)}
	}
	return err
}

// indentedPaths are the tab-indented lines of git's complaint, which
// name the files in its way.
func indentedPaths(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if p, ok := strings.CutPrefix(l, "\t"); ok {
			out = append(out, p)
		}
	}
	return out
}
