// Package kill implements `csa kill`: stop sessions and their descendants.
package kill

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/clustercmd"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
)

// Options are the flags of `csa kill`.
type Options struct {
	F     *cmdutil.Factory
	IDs   []string
	Grace time.Duration
	// graceSet: --grace was given; otherwise the configured grace applies.
	graceSet bool
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	o := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "kill ID... [--grace DUR]",
		Short: "Stop sessions (SIGTERM, then SIGKILL after the grace period), descendants first",
		Long: `Stop sessions and their running descendants, deepest first: SIGTERM to each
program's process group, SIGKILL to what is left after the grace period. The
grace is --grace, else the project's defaults.kill_grace (5s unless
configured), the same one Ctrl-C and timeouts give a run; the session's
supervisor uses it too.`,
		Args: cmdutil.MinimumArgs(1, "the ids of the sessions to kill (see `csa ps`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.IDs = args
			o.graceSet = cmd.Flags().Changed("grace")
			return Run(cmd.Context(), o)
		},
	}
	cmd.Flags().Var(cmdutil.Duration(&o.Grace, 0), "grace", "time between SIGTERM and SIGKILL (default: defaults.kill_grace; 0: SIGKILL right after SIGTERM)")
	return cmd
}

// Entry reports one session's end.
type Entry struct {
	ID    string         `json:"id"`
	State session.Status `json:"state"`
}

// Run kills the sessions and every running descendant, deepest first.
func Run(ctx context.Context, o *Options) error {
	store, root, err := o.F.CwdStore()
	if err != nil {
		return err
	}
	if !o.graceSet {
		o.Grace = configuredGrace(o.F, root)
	}
	ids, remote, err := clustercmd.Split(o.F, store, o.IDs)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		// Remote sessions only: csa-cluster kills them and answers.
		return clustercmd.HandOver(o.remoteArgs(remote, o.F.JSON)...)
	}
	if err := o.F.GuardLineage(store, "kill", ids); err != nil {
		return err
	}
	targets, err := store.KillOrder(ids)
	if err != nil {
		return err
	}
	states, err := runner.Kill(ctx, store, targets, o.Grace, "killed by csa kill")
	out := make([]Entry, len(states))
	for i, st := range states {
		out[i] = Entry{ID: st.ID, State: st.Status}
	}
	if len(remote) > 0 {
		rout, rerr := clustercmd.Call(ctx, o.remoteArgs(remote, true)...)
		var rs []Entry
		if jerr := json.Unmarshal(rout, &rs); jerr == nil {
			out = append(out, rs...)
		}
		err = errors.Join(err, rerr)
	}
	if o.F.JSON {
		if perr := o.F.IO.PrintJSON(out); perr != nil {
			return perr
		}
	} else {
		for _, e := range out {
			fmt.Fprintf(o.F.IO.Out, "%s\t%s\n", e.ID, e.State)
		}
	}
	return err
}

// remoteArgs is csa-cluster's kill of the remote ids, with the grace
// when one was given (else each worker's own defaults.kill_grace).
func (o *Options) remoteArgs(remote []string, asJSON bool) []string {
	args := []string{"kill"}
	if o.graceSet {
		args = append(args, "--grace", o.Grace.String())
	}
	if asJSON {
		args = append(args, "--json")
	}
	return append(append(args, "--"), remote...)
}

// configuredGrace is the project's defaults.kill_grace. A config that does
// not load must not keep anyone from stopping a run: the default applies,
// with a warning.
func configuredGrace(f *cmdutil.Factory, root string) time.Duration {
	l, err := f.Config(root)
	if err != nil {
		def := config.Default().Defaults.KillGrace.Std()
		fmt.Fprintf(f.IO.ErrOut, "csa: warning: %v; using the default kill_grace %s\n", err, def)
		return def
	}
	return l.Config.Defaults.KillGrace.Std()
}
