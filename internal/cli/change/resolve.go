package change

import (
	"context"
	"fmt"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/resolve"
	"github.com/csa-dev/csa/internal/review"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/takeback"
)

// resolutionView is csa merge --resolve's account of a blocked change.
type resolutionView struct {
	Tool      string `json:"tool,omitempty"`       // the resolver's
	SessionID string `json:"session_id,omitempty"` // its run
	Branch    string `json:"branch,omitempty"`     // its branch, kept
	Review    string `json:"review,omitempty"`     // the review's session
	Verdict   string `json:"verdict,omitempty"`
	Error     string `json:"error,omitempty"` // why the change is still blocked
}

// newResolver is the resolver of csa merge --resolve in the current
// directory: the project's tools, and csa itself to start the runs.
func newResolver(f *cmdutil.Factory, g *gittree.Git, tool string) (*resolve.Resolver, error) {
	loaded, _, err := f.CwdConfig()
	if err != nil {
		return nil, err
	}
	cfg := &loaded.Config
	exe, err := f.Executable()
	if err != nil {
		return nil, fmt.Errorf("find csa itself: %w", err)
	}
	cands, skipped := review.Candidates(cfg)
	r := &resolve.Resolver{
		Git: g, Dir: ".", Cands: cands, Skipped: skipped,
		Runner: &review.Runner{Exe: exe, Env: f.Environ(), Dir: ".", Grace: cfg.Defaults.KillGrace.Std() + 5*time.Second},
		Family: func(t agents.Tool, model string) string {
			if fam := agents.FamilyOf(t, model); fam != "" {
				return fam
			}
			return cfg.Family(t)
		},
		Load: func(ctx context.Context, id string) (*session.State, error) {
			_, st, err := f.CwdSession(ctx, id)
			return st, err
		},
		Say: func(msg string) { fmt.Fprintf(f.IO.ErrOut, "csa merge: %s\n", msg) },
	}
	if tool != "" {
		t, err := agents.Parse(tool)
		if err != nil {
			return nil, cmdutil.Usagef("--tool: %v", err)
		}
		r.Tool = t
	}
	return r, nil
}

// resolveBlocked gives each blocked change of o, in order, to the
// resolver, onto the branch as it is then, and moves the branch to each
// resolved and reviewed merge.
func resolveBlocked(ctx context.Context, f *cmdutil.Factory, g *gittree.Git, o *takeback.Outcome, s takeback.Strategy, tool string) (map[int]*resolutionView, error) {
	r, err := newResolver(f, g, tool)
	if err != nil {
		return nil, err
	}
	views := map[int]*resolutionView{}
	for i := range o.Results {
		res := &o.Results[i]
		if res.Status != takeback.Blocked {
			continue
		}
		out, err := r.Resolve(ctx, o.To, res.Change, s)
		if err != nil {
			return views, fmt.Errorf("session %s: %w", res.Change.SessionID, err)
		}
		v := &resolutionView{Tool: out.Tool, SessionID: out.Session, Branch: out.Branch, Review: out.Review, Verdict: out.Verdict, Error: out.Failed}
		views[i] = v
		commit := out.Commit
		if out.Conflict == nil { // the branch moved since: now it merges cleanly
			var paths []string
			if commit, paths, err = takeback.MergeOnto(ctx, g, ".", o.To, res.Change, s); err == nil && paths != nil {
				err = fmt.Errorf("git merge-tree finds conflicts in %v it did not find a moment before", paths)
			}
			if err != nil {
				return views, fmt.Errorf("session %s: %w", res.Change.SessionID, err)
			}
		}
		if commit == "" {
			continue
		}
		if err := g.FastForward(ctx, ".", commit); err != nil {
			return views, err
		}
		res.Status, res.Commit, res.Paths, res.Sides = takeback.Merged, commit, nil, nil
		o.To = commit
	}
	return views, nil
}
