package change

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
)

// branchView is csa branch --json's answer.
type branchView struct {
	SessionID string            `json:"session_id"`
	Branch    string            `json:"branch"`
	Repo      string            `json:"repo"`
	Base      string            `json:"base"`
	Snapshot  string            `json:"snapshot"`
	Head      string            `json:"head"`
	RawBytes  map[string]string `json:"raw_bytes,omitempty"`
}

// NewBranchCmd builds `csa branch`.
func NewBranchCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "branch ID",
		Short: "Print the branch holding a worktree run's change",
		Long: `Print the git branch a run in a worktree of its own (csa run --worktree)
recorded its change on; --json adds the repository and the commits: base (the
caller's HEAD), snapshot (the caller's uncommitted changes on it) and head (the
run's change is snapshot..head).
Exit status: 0, 2 usage, 3 the session has no change (it ran in the caller's
tree, or has not ended).`,
		Args: cmdutil.ExactArgs(1, "a session id (see `csa ps`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := Local(cmd.Context(), f, args[0])
			if err != nil {
				return err
			}
			if f.JSON {
				return printJSON(f, &branchView{SessionID: c.SessionID, Branch: c.Branch, Repo: c.Repo,
					Base: c.Base, Snapshot: c.Snapshot, Head: c.Head})
			}
			_, err = fmt.Fprintln(f.IO.Out, c.Branch)
			return err
		},
	}
}
