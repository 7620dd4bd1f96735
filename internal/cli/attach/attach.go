// Package attach implements `csa attach`: hand the terminal to an
// interactive session's tmux session.
package attach

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/tmux"
)

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	var print bool
	cmd := &cobra.Command{
		Use:   "attach ID",
		Short: "Attach this terminal to an interactive session (detach with C-b d)",
		Args:  cmdutil.ExactArgs(1, "the id of an interactive session (see `csa ps`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, st, err := f.CwdSession(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			id := st.ID
			if st.Interactive == nil {
				return cmdutil.Usagef("session %s is not interactive", id)
			}
			if st.Status.Ended() {
				return cmdutil.Refused("ended", fmt.Errorf("session %s has ended (%s): read it with csa logs %s", id, st.Status, id))
			}
			srv, err := cmdutil.TmuxFor(st)
			if err != nil {
				return err
			}
			argv := srv.AttachArgs(st.Interactive.TmuxSession)
			if print || f.JSON {
				if f.JSON {
					return f.IO.PrintJSON(map[string]any{"session_id": id, "argv": append([]string{srv.Bin}, argv...)})
				}
				fmt.Fprintln(f.IO.Out, tmux.Command(srv.Bin, argv))
				return nil
			}
			if !f.IO.InTTY || !f.IO.OutTTY {
				return cmdutil.Usagef("csa attach needs a terminal (use --print for the tmux command)")
			}
			return proc.Exec(srv.Bin, argv, tmux.Env(f.Environ()))
		},
	}
	cmd.Flags().BoolVar(&print, "print", false, "print the tmux command instead of attaching")
	return cmd
}
