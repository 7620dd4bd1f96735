// Package pane implements the hidden commands that run inside an
// interactive session: `csa __pane` (the process of the tmux pane, which
// supervises the agent) and `csa __hook` (called by the agent's own turn
// hooks).
package pane

import (
	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/runner"
)

// NewCmd builds `csa __pane --sessions DIR ID`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	var sessions string
	cmd := &cobra.Command{
		Use:    "__pane --sessions DIR ID",
		Hidden: true,
		// SIGINT typed in the pane is the agent's.
		Annotations: map[string]string{cmdutil.Signals: cmdutil.SignalsPane},
		Args:        cmdutil.ExactArgs(1, "a session id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, id, err := cmdutil.SessionsArg(sessions, args[0])
			if err != nil {
				return err
			}
			exe, _ := f.Executable()
			sup := &runner.Supervisor{Now: f.Now, Exe: exe}
			if code := runner.RunPane(cmd.Context(), store, id, sup); code != 0 {
				return &cmdutil.Silent{Exit: code}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&sessions, "sessions", "", "sessions directory of the store")
	return cmd
}
