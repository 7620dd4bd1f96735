// Package supervise implements the hidden `csa __supervise`, the background
// process that supervises a detached run.
package supervise

import (
	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/lock"
	"github.com/csa-dev/csa/internal/runner"
)

// NewCmd builds the hidden command. Its contract with `csa run --detach`:
// fd 3 holds the session's supervisor lock, --sessions names the store.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	var sessions string
	cmd := &cobra.Command{
		Use:    "__supervise --sessions DIR ID",
		Hidden: true,
		Args:   cmdutil.ExactArgs(1, "a session id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			exe, _ := f.Executable()
			// The run's keeper is found now, overlapping the adoption.
			keeper := runner.StartKeeper(exe, f.Getenv)
			defer keeper.Release()
			store, id, err := cmdutil.SessionsArg(sessions, args[0])
			if err != nil {
				return err
			}
			h, err := lock.Adopt(runner.LockFD, "supervisor.lock")
			if err != nil {
				return err
			}
			r, err := runner.Adopt(store, id, h)
			if err != nil {
				h.Release()
				return err
			}
			sup := &runner.Supervisor{Store: store, BaseEnv: f.Environ(), Now: f.Now, Exe: exe, Keeper: keeper}
			_, err = sup.Supervise(cmd.Context(), r)
			return err
		},
	}
	cmd.Flags().StringVar(&sessions, "sessions", "", "sessions directory of the store")
	return cmd
}
