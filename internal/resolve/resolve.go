// Package resolve gives a merge that conflicts to an agent (csa merge
// --resolve): the conflict becomes a commit with git's markers, an agent
// of another model family than the two that wrote the sides resolves it
// in a worktree of its own (a csa run -w child, so it is a session like
// any other), the result must be free of markers and pass csa review,
// and only then is it made into the commit that merges the change.
// Nothing reaches the caller's branch unreviewed: the caller moves the
// branch, with the commit Resolve returns.
package resolve

import (
	"context"
	"fmt"
	"strings"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/review"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/takeback"
)

// Resolver resolves blocked changes in the caller's work tree Dir.
type Resolver struct {
	Git    *gittree.Git
	Dir    string
	Runner *review.Runner // starts the resolver's csa run and its csa review
	// Cands are the tools that may resolve, in csa's order; Skipped why
	// the others may not (for the error when none is left).
	Cands   []review.Candidate
	Skipped []string
	// Tool, when set, resolves whatever the sides' families (--tool).
	Tool agents.Tool
	// Family is the model family of a tool run with model ("" unknown).
	Family func(tool agents.Tool, model string) string
	// Load reads a session's state (the resolver's, once it has ended).
	Load func(ctx context.Context, id string) (*session.State, error)
	Say  func(string)
}

// Outcome is what became of one blocked change.
type Outcome struct {
	Conflict *takeback.Conflict // nil when the change merged cleanly after all
	Tool     string             // the resolver's tool
	Session  string             // its run
	Branch   string             // its branch, kept whatever happens
	Review   string             // the review's session
	Verdict  string             // and its verdict
	// Commit merges the change with the resolution; "" when it is not
	// resolved, and Failed says why.
	Commit string
	Failed string
}

// Resolve merges c onto onto with strategy s through an agent, when it
// conflicts there. An error is csa's own trouble (git failing); a
// resolution that fails is an Outcome with Failed set.
func (r *Resolver) Resolve(ctx context.Context, onto string, c *takeback.Change, s takeback.Strategy) (*Outcome, error) {
	k, err := takeback.Conflicted(ctx, r.Git, r.Dir, onto, c)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Conflict: k}
	if k == nil {
		return out, nil
	}
	tool, err := r.pick(ctx, k)
	if err != nil {
		out.Failed = err.Error()
		return out, nil
	}
	out.Tool = string(tool)
	r.Say(fmt.Sprintf("%s conflicts in %s: resolving with %s", c.SessionID, strings.Join(k.Paths, ", "), tool))
	run, err := r.Runner.Work(ctx, string(tool), []string{"--worktree", "--worktree-base", k.Commit}, Prompt(k))
	if err != nil {
		out.Failed = "the resolver did not run: " + err.Error()
		return out, nil
	}
	out.Session = run.SessionID
	st, err := r.Load(ctx, run.SessionID)
	if err != nil {
		return nil, err
	}
	if st.Workspace != nil {
		out.Branch = st.Workspace.Branch
	}
	if why := run.Failed(); why != "" {
		out.Failed = fmt.Sprintf("the resolver's run %s %s", run.SessionID, why)
		return out, nil
	}
	rc, err := takeback.Of(st)
	if err != nil {
		out.Failed = err.Error()
		return out, nil
	}
	if rc.Head == rc.Snapshot {
		out.Failed = fmt.Sprintf("the resolver's run %s changed nothing", run.SessionID)
		return out, nil
	}
	marked, err := r.Git.Marked(ctx, r.Dir, rc.Head, k.Paths)
	if err != nil {
		return nil, err
	}
	if len(marked) > 0 {
		out.Failed = fmt.Sprintf("the resolver's run %s left conflict markers in %s", run.SessionID, strings.Join(marked, ", "))
		return out, nil
	}
	r.Say(fmt.Sprintf("%s resolved by %s: reviewing it", c.SessionID, run.SessionID))
	rep, err := r.Runner.ReviewSession(ctx, run.SessionID)
	if err != nil {
		out.Failed = "the review did not run: " + err.Error()
		return out, nil
	}
	out.Review, out.Verdict = rep.SessionID, rep.Verdict
	if rep.Verdict != review.Pass {
		out.Failed = fmt.Sprintf("review %s of the resolution: %s", rep.SessionID, rep.Verdict)
		return out, nil
	}
	out.Commit, err = k.Resolved(ctx, r.Git, r.Dir, s, takeback.Resolution{
		SessionID: run.SessionID, Tool: out.Tool, Review: rep.SessionID, Tree: rc.Head + "^{tree}",
	})
	return out, err
}

// pick is --tool, else the first tool of another family than both sides':
// the run that made the change, and the runs whose commits on the branch
// touch the conflicting paths since the change's snapshot (their CSA-Tool
// trailers; a person's commits name no family).
func (r *Resolver) pick(ctx context.Context, k *takeback.Conflict) (agents.Tool, error) {
	if r.Tool != "" {
		return r.Tool, nil
	}
	c := k.Change
	avoid := []review.Party{{Role: "run", Tool: agents.Tool(c.Tool), Family: r.Family(agents.Tool(c.Tool), c.Model)}}
	tools, err := r.Git.Trailer(ctx, r.Dir, c.Snapshot, k.Onto, "CSA-Tool", k.Paths)
	if err != nil {
		return "", err
	}
	for _, t := range tools {
		avoid = append(avoid, review.Party{Role: "branch", Tool: agents.Tool(t), Family: r.Family(agents.Tool(t), "")})
	}
	cand, err := review.PickOther(r.Cands, r.Skipped, "resolver", avoid)
	return cand.Tool, err
}
