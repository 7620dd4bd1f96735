// Package apply is `csa apply ID`: the change a run made, applied to the
// local work tree. A run in a worktree of its own (csa run --worktree)
// recorded it on its branch; a remote run's agent made it in its scratch
// tree on a worker, and csa-cluster does that work (csa links no NATS
// code).
package apply

import (
	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/change"
	"github.com/csa-dev/csa/internal/cli/clustercmd"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
)

// NewCmd builds `csa apply`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	var check, diff bool
	cmd := &cobra.Command{
		Use:   "apply ID [--check] [--diff]",
		Short: "Apply the change a run made to this git work tree",
		Long: `A run in a worktree of its own (csa run --worktree) records its change on its
branch, from its snapshot of the caller's tree; csa apply ID applies that
change to the work tree holding the current directory, all of it or nothing,
with git apply; the index is not touched. --check only tells whether it
applies; --diff prints it instead (as csa diff ID does).
A remote run (csa run --remote) takes the caller's git work tree to its worker
(HEAD and the uncommitted changes) and, when it ends, records what the agent
changed there as a binary diff in the cluster: a session this project does not
hold is looked up there, and its diff applied the same way.
Exit status: 0 applied (or applies, with --check), 1 it conflicts with the
local tree (the paths are listed, nothing is changed), 2 usage (not in a git
work tree, no cluster configured), 3 no such remote session, or no diff (the
session has not ended, took no working tree, or its agent changed nothing, or
a local run ran in the caller's tree).`,
		Args: cmdutil.ExactArgs(1, "a session id (see `csa ps`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := change.Local(cmd.Context(), f, args[0])
			if !change.NotHere(err) {
				if err != nil {
					return err
				}
				return change.Apply(cmd.Context(), f, c, check, diff)
			}
			// Not a session of this project: a remote one, from csa-cluster.
			out := []string{"apply"}
			if check {
				out = append(out, "--check")
			}
			if diff {
				out = append(out, "--diff")
			}
			if f.JSON {
				out = append(out, "--json")
			}
			return clustercmd.HandOver(append(out, args[0])...)
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "only tell whether the diff applies (exit 1 when it conflicts)")
	cmd.Flags().BoolVar(&diff, "diff", false, "print the diff instead of applying it")
	return cmd
}
