// Package todo implements `csa todo`: plans of tasks whose dependencies
// form a DAG, kept per project in a git repository of their own, and run
// as sub-agents.
package todo

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/todo"
)

// NewCmd builds `csa todo` and its subcommands.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "todo",
		Short: "Plans of tasks (a DAG) kept in git, run as sub-agents",
		Long: `Plans of tasks whose dependencies form a DAG, one markdown file per plan,
kept per project in a git repository of their own under csa's state
directory (every change a commit: csa todo log). csa todo run runs the
tasks as sub-agents in dependency order.

A plan:

  # Add a cache

  status: draft

  Free text about the plan.

  - [ ] A: write the cache package
    tool: codex
  - [ ] B: use it in the server (after: A)
    prompt: Use internal/cache in the server's handlers.
  - [x] C: document it (after: A, B)

Statuses: draft -> approved -> implementing -> done (approved -> draft,
implementing -> approved and done -> implementing too).`,
		Args: cobra.NoArgs,
	}
	for _, sub := range []*cobra.Command{
		newCreate(f), newList(f), newShow(f), newEdit(f), newStatus(f),
		newDone(f), newLog(f), newDag(f), newRun(f),
	} {
		cmd.AddCommand(sub)
	}
	return cmd
}

// store is the plan store of the current directory's project.
func store(f *cmdutil.Factory) (*todo.Store, string, error) {
	cwd, slug, err := f.CwdProject()
	if err != nil {
		return nil, "", err
	}
	return todo.Open(f.StateDir(), slug, f.Getenv("PATH")), cwd, nil
}

// resolve opens the store and finds the plan arg names.
func resolve(f *cmdutil.Factory, arg string) (*todo.Store, string, error) {
	s, _, err := store(f)
	if err != nil {
		return nil, "", err
	}
	id, err := s.Resolve(arg)
	return s, id, classify(err)
}

// classify gives the todo package's errors their exit codes.
func classify(err error) error {
	var pe *todo.ParseError
	var nf *todo.NotFoundError
	var amb *todo.AmbiguousError
	var te *todo.TransitionError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe):
		return &cmdutil.Error{Code: "invalid_plan", Exit: cmdutil.ExitUsage, Err: err}
	case errors.As(err, &nf):
		return &cmdutil.Error{Code: "not_found", Exit: cmdutil.ExitUsage, Err: err}
	case errors.As(err, &amb):
		return &cmdutil.Error{Code: "ambiguous_id", Exit: cmdutil.ExitUsage, Err: err}
	case errors.As(err, &te):
		return &cmdutil.Error{Code: "invalid_transition", Exit: cmdutil.ExitUsage, Err: err}
	case errors.Is(err, todo.ErrNotApproved):
		return cmdutil.Refused("not_approved", err)
	case errors.Is(err, todo.ErrBusy):
		return cmdutil.Refused("busy", err)
	case errors.Is(err, todo.ErrConflict):
		return &cmdutil.Error{Code: "conflict", Exit: cmdutil.ExitFailed, Err: err}
	}
	return err
}
