package review

import (
	"context"
	"errors"

	"github.com/csa-dev/csa/internal/cli/change"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/review"
	"github.com/csa-dev/csa/internal/takeback"
)

// sessionChange is the change the run id recorded (csa run --worktree),
// diffed in the run's repository as csa diff does. A session without
// one is a usage error here (exit 2): there is nothing to review, and
// nothing was started.
func sessionChange(ctx context.Context, f *cmdutil.Factory, id string) (*review.Change, error) {
	_, st, err := f.CwdSession(ctx, id)
	if err != nil {
		return nil, err
	}
	c, err := takeback.Of(st)
	var nc *takeback.NoChangeError
	if errors.As(err, &nc) {
		return nil, &cmdutil.Error{Code: "no_change", Exit: cmdutil.ExitRefused, Err: err}
	}
	if err != nil {
		return nil, err
	}
	diff, err := takeback.Diff(ctx, change.Git(f), c)
	if err != nil {
		return nil, err
	}
	return review.OfSession(c.SessionID, c.Branch, diff)
}
