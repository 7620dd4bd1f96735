// Package apply is `csa apply ID`: the diff a remote run's agent made in
// its scratch tree on a worker, applied to the local work tree. The work
// is done by csa-cluster (csa links no NATS code).
package apply

import (
	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/clustercmd"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
)

// NewCmd builds `csa apply`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	var check, diff bool
	cmd := &cobra.Command{
		Use:   "apply ID [--check] [--diff]",
		Short: "Apply the changes of a remote run's agent to this git work tree",
		Long: `A remote run (csa run --remote) takes the caller's git work tree to its worker
(HEAD and the uncommitted changes) and, when it ends, records what the agent
changed there as a binary diff in the cluster. csa apply ID applies that diff
to the work tree holding the current directory, all of it or nothing, with
git apply; the index is not touched. --check only tells whether it applies;
--diff prints it instead.
Exit status: 0 applied (or applies, with --check), 1 it conflicts with the
local tree (the paths are listed, nothing is changed), 2 usage (not in a git
work tree, no cluster configured), 3 no such remote session, or no diff (the
session has not ended, took no working tree, or its agent changed nothing).`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
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
