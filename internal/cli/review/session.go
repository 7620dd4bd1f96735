package review

import (
	"context"
	"errors"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cli/change"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/review"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/takeback"
)

// sessionChange is the change the run id recorded (csa run --worktree),
// diffed in the run's repository as csa diff does. A session without
// one is a usage error here (exit 2): there is nothing to review, and
// nothing was started. The session's state comes with it.
func sessionChange(ctx context.Context, f *cmdutil.Factory, id string) (*review.Change, *session.State, error) {
	_, st, err := f.CwdSession(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	c, err := takeback.Of(st)
	var nc *takeback.NoChangeError
	if errors.As(err, &nc) {
		return nil, nil, &cmdutil.Error{Code: "no_change", Exit: cmdutil.ExitRefused, Err: err}
	}
	if err != nil {
		return nil, nil, err
	}
	diff, err := takeback.Diff(ctx, change.Git(f), c)
	if err != nil {
		return nil, nil, err
	}
	rc, err := review.OfSession(c.SessionID, c.Branch, diff)
	return rc, st, err
}

// author is the party who wrote a session's change: its reviewers are of
// other model families (its recorded model's, else the tool's as
// configured).
func (t *Team) author(st *session.State) review.Party {
	tool := agents.Tool(st.Tool)
	fam := agents.FamilyOf(tool, st.Model)
	if fam == "" {
		fam = t.Cfg.Family(tool)
	}
	return review.Party{Role: "author", Tool: tool, Family: fam}
}
