// Package workspace gives a local run a git worktree of its own (csa run
// --worktree): a branch from the caller's HEAD plus a commit of the
// caller's uncommitted changes, checked out beside the session's record;
// when the run ends, what the agent changed is committed on that branch
// and the worktree's folder removed. Git is driven through
// internal/gittree, the same snapshot remote runs take.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/session"
)

// Who is csa as the author of the commits it makes.
var Who = gittree.CSA

// MessageFile, in the session's folder, holds the message of the commit
// recording the run's change, written when the worktree is made: a
// supervisor that dies leaves it to whoever records the change.
const MessageFile = "workspace-message.txt"

// Root is where a project's worktrees live: in csa's state folder beside
// the project's sessions, not inside the user's repository, where every
// tool that walks the repository (git status, grep, a build, an editor's
// indexer) would find each run's copy of it, and a `git clean -fdx`
// would delete a running agent's tree.
func Root(store *session.Store) string {
	return filepath.Join(filepath.Dir(store.Root()), "worktrees")
}

// Inside reports whether dir is in one of the project's worktrees: a run
// started there (a nested csa run) works in that worktree.
func Inside(store *session.Store, dir string) bool {
	r, err := filepath.Rel(Root(store), dir)
	return err == nil && r != "." && r != ".." && !strings.HasPrefix(r, "../")
}

// Check tells whether a run in cwd can have a worktree: cwd is in a git
// work tree with a commit to start from.
func Check(ctx context.Context, g *gittree.Git, cwd string) error {
	_, err := g.Top(ctx, cwd)
	return err
}

// Options are what a run asks of its worktree.
type Options struct {
	// Naming names its branch.
	Naming Naming
	// Keep keeps its folder once the change is recorded.
	Keep bool
	// Submodules checks out the repository's submodules in it: git
	// worktree add does not, and by default none are (a clone each).
	Submodules bool
}

// Create makes session st's worktree for a caller in cwd, records it in
// st.Workspace (and the message of its change in the session's folder),
// and returns the folder the agent works in: cwd's counterpart in it.
// It starts from *snap, the caller's tree as taken before (or a base
// commit, gittree.At, for a run that builds on another's branch); when
// *snap is nil it takes it now and leaves it there, for the next attempt
// of a tier to start from the same tree.
func Create(ctx context.Context, g *gittree.Git, store *session.Store, st *session.State, prompt, cwd string, opt Options, snap **gittree.Snapshot) (string, error) {
	if *snap == nil {
		taken, err := g.Take(ctx, cwd)
		if err != nil {
			return "", err
		}
		*snap = taken
	}
	return create(ctx, g, store, st, prompt, *snap, opt)
}

func create(ctx context.Context, g *gittree.Git, store *session.Store, st *session.State, prompt string, snap *gittree.Snapshot, opt Options) (string, error) {
	if err := os.WriteFile(store.Path(st.ID, MessageFile), ChangeMessage(prompt, st.ID, st.Tool), 0o600); err != nil {
		return "", err
	}
	dir := filepath.Join(Root(store), st.ID)
	if err := os.MkdirAll(Root(store), 0o700); err != nil {
		return "", err
	}
	branches := opt.Naming.Branches(BranchVars{ID: st.ID, Tool: st.Tool, At: st.CreatedAt})
	branch, start, err := g.AddWorktree(ctx, snap, dir, branches, snapshotMessage(st.ID, st.Tool), Who)
	if err != nil {
		return "", fmt.Errorf("create the run's worktree: %w", err)
	}
	ws := &session.Workspace{
		Repo: snap.Root, Dir: dir, Branch: branch, Subdir: snap.Subdir, Base: snap.Commit, Snapshot: start, Keep: opt.Keep,
	}
	if opt.Submodules {
		if err := g.InitSubmodules(ctx, dir); err != nil {
			return "", errors.Join(fmt.Errorf("check out the submodules of the run's worktree: %w", err), Discard(ctx, g, ws))
		}
	}
	st.Workspace = ws
	return filepath.Join(dir, filepath.FromSlash(snap.Subdir)), nil
}

// Record commits what the run of st changed on its branch, fills in
// Head, Recorded and the change's size, and removes the worktree's folder
// unless it is kept. It changes nothing once the change is recorded, and
// records it again harmlessly (no new commit) after a supervisor that
// died half way.
func Record(ctx context.Context, g *gittree.Git, store *session.Store, st *session.State) error {
	ws := st.Workspace
	if ws == nil || ws.Recorded {
		return nil
	}
	var head string
	var err error
	if _, serr := os.Stat(ws.Dir); ws.Dir != "" && serr == nil {
		msg, rerr := os.ReadFile(store.Path(st.ID, MessageFile))
		if rerr != nil {
			msg = ChangeMessage("", st.ID, st.Tool)
		}
		head, err = g.RecordWorktree(ctx, ws.Dir, ws.Branch, msg, Who)
	} else {
		// The folder is gone: it went after the change was committed.
		head, err = g.BranchHead(ctx, ws.Repo, ws.Branch)
	}
	if err != nil {
		return fmt.Errorf("record the run's change on %s: %w", ws.Branch, err)
	}
	stat, err := g.ChangeSize(ctx, ws.Repo, ws.Snapshot, head)
	if err != nil {
		return err
	}
	ws.Head, ws.Recorded = head, true
	ws.Files, ws.Insertions, ws.Deletions = stat.Files, stat.Insertions, stat.Deletions
	if !ws.Keep {
		return Remove(ctx, g, ws)
	}
	return nil
}

// Remove removes the worktree's folder (its branch stays) and forgets it
// in ws.
func Remove(ctx context.Context, g *gittree.Git, ws *session.Workspace) error {
	if ws.Dir == "" {
		return nil
	}
	if err := g.RemoveWorktree(ctx, ws.Repo, ws.Dir); err != nil {
		return fmt.Errorf("remove the worktree %s: %w", ws.Dir, err)
	}
	ws.Dir = ""
	return nil
}

// Discard undoes Create for a run that never started: the worktree and
// its new branch, which holds nothing but the caller's snapshot.
func Discard(ctx context.Context, g *gittree.Git, ws *session.Workspace) error {
	return errors.Join(Remove(ctx, g, ws), g.DeleteBranch(ctx, ws.Repo, ws.Branch))
}
