// Package change holds the commands that take a run's change back into
// the caller's work tree: csa diff, csa branch and csa merge, and the
// local half of csa apply. A run in a worktree of its own (csa run
// --worktree) recorded its change on its branch; a remote run's change
// is in the cluster, and csa-cluster hands it over. The policy is in
// internal/takeback.
package change

import (
	"context"
	"errors"
	"fmt"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/takeback"
	"github.com/csa-dev/csa/internal/verbatim"
)

// Git is git as the commands run it: the caller's environment, without
// what would point git at another repository.
func Git(f *cmdutil.Factory) *gittree.Git { return &gittree.Git{Env: gittree.Clean(f.Environ())} }

// Local resolves prefix in the current project's store. A session it
// does not hold is a *session.NotFoundError (a remote one, maybe).
func Local(ctx context.Context, f *cmdutil.Factory, prefix string) (*takeback.Change, error) {
	_, st, err := f.CwdSession(ctx, prefix)
	if err != nil {
		return nil, err
	}
	c, err := takeback.Of(st)
	var nc *takeback.NoChangeError
	if errors.As(err, &nc) {
		return nil, cmdutil.Refused("no_change", err)
	}
	return c, err
}

// NotHere: the local store holds no session of that id (a remote
// session's id is the cluster's to judge).
func NotHere(err error) bool {
	var nf *session.NotFoundError
	var inv *session.InvalidIDError
	return errors.As(err, &nf) || errors.As(err, &inv)
}

// InWorkTree checks that the current directory is in a git work tree,
// which applying or merging needs.
func InWorkTree(ctx context.Context, g *gittree.Git, verb string) error {
	if _, err := g.Top(ctx, "."); err != nil {
		if errors.Is(err, gittree.ErrNotRepo) {
			return cmdutil.Usagef("csa %s works on a git work tree, and this directory is not in one", verb)
		}
		return err
	}
	return nil
}

// dirty is git's refusal to overwrite local changes as a usage error
// (exit 2): nothing was changed.
func dirty(err error) error {
	var d *gittree.DirtyError
	if errors.As(err, &d) {
		return &cmdutil.Error{Code: "dirty", Exit: cmdutil.ExitUsage, Err: err}
	}
	return err
}

// printJSON writes v, a pointer to a struct with a raw_bytes field, as
// indented JSON keeping the exact bytes of its paths.
func printJSON(f *cmdutil.Factory, v any) error {
	b, err := verbatim.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = f.IO.Out.Write(append(b, '\n'))
	return err
}

// quoted is a path as text for a terminal: itself when it is printable,
// else Go-quoted (the exact bytes are in --json's raw_bytes).
func quoted(p string) string {
	q := fmt.Sprintf("%q", p)
	if q[1:len(q)-1] == p {
		return p
	}
	return q
}
