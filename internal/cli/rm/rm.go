// Package rm implements `csa rm`: delete ended sessions.
package rm

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/runner"
)

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "rm ID... [--force]",
		Short: "Remove sessions and their records (a running one only with --force, which kills it)",
		Args:  cmdutil.MinimumArgs(1, "the ids of the sessions to remove (see `csa ps`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, _, err := f.CwdStore()
			if err != nil {
				return err
			}
			ids, err := cmdutil.ResolveAll(store, args)
			if err != nil {
				return err
			}
			if err := f.GuardLineage(store, "remove", ids); err != nil {
				return err
			}
			for _, id := range ids {
				st, err := f.Current(cmd.Context(), store, id)
				if err != nil {
					return err
				}
				if !st.Status.Ended() {
					if !force {
						return cmdutil.Refused("running", fmt.Errorf("session %s is %s: kill it first, or use --force", id, st.Status))
					}
					if _, err := runner.Kill(cmd.Context(), store, []string{id}, 0, "killed by csa rm --force"); err != nil {
						return err
					}
				}
			}
			for _, id := range ids {
				if err := store.Remove(id); err != nil {
					return err
				}
			}
			if f.JSON {
				return f.IO.PrintJSON(map[string]any{"removed": ids})
			}
			for _, id := range ids {
				fmt.Fprintln(f.IO.Out, id)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "kill a running session before removing it")
	return cmd
}
