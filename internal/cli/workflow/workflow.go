// Package workflow implements `csa workflow`: compile a PATTERN.md
// workflow into its plan, run it, resume a run, and show runs.
package workflow

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/sandbox"
	"github.com/csa-dev/csa/internal/session"
	wf "github.com/csa-dev/csa/internal/workflow"
)

// Options are the flags of `csa workflow run` and `resume`.
type Options struct {
	F         *cmdutil.Factory
	File      string
	ID        string
	Vars      []string
	Heartbeat time.Duration
	// Isolate is what agent steps that do not say confine (run only).
	Isolate string
	// MaxCost is each agent step's run's budget in USD (run only).
	MaxCost float64
}

// NewCmd builds `csa workflow` and its subcommands.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workflow",
		Short: "Compile, run and resume PATTERN.md workflows of shell, agent, review and debate steps",
		Long: `A workflow is a markdown file of steps (see docs/plans-workflows-batches.md, "Workflows"): shell
commands, sub-agent runs, reviews and debates, run in order, with IF/ELSE, bounded
FOR loops, INCLUDEs and ${VAR} substitution. Every run is journaled under the
state directory, so a killed run resumes without repeating finished steps.

Exit status of run and resume: 0 every step completed (or was skipped), 1 a
step failed, 2 a bad workflow file or usage, 3 the run is held by another csa,
130 interrupted (resume it later).`,
	}
	o := &Options{F: f}
	run := &cobra.Command{
		Use:   "run FILE [--var K=V]... [--isolate WORDS] [--max-cost USD]",
		Short: "Run a workflow; prints the run id first",
		Args:  cmdutil.ExactArgs(1, "a workflow file (PATTERN.md)"),
		RunE: func(c *cobra.Command, args []string) error {
			o.File = args[0]
			return Run(c.Context(), o)
		},
	}
	run.Flags().StringArrayVar(&o.Vars, "var", nil, "set a variable declared in the front matter: K=V (repeatable)")
	run.Flags().Float64Var(&o.MaxCost, "max-cost", 0, "stop each agent step's run, budget_exceeded, once it and the runs it started cost more than this many USD, as csa run --max-cost (0: no limit)")
	run.Flags().StringVar(&o.Isolate, "isolate", "", "confine each agent step that has no Isolate: line: fs, net, fs,net or none, as csa run --isolate (default: the front matter's isolate, else csa run's)")
	resume := &cobra.Command{
		Use:   "resume ID",
		Short: "Resume a run that was interrupted or failed, without repeating finished steps",
		Args:  cmdutil.ExactArgs(1, "a workflow run id (see `csa workflow list`)"),
		RunE: func(c *cobra.Command, args []string) error {
			o.ID = args[0]
			return Resume(c.Context(), o)
		},
	}
	for _, c := range []*cobra.Command{run, resume} {
		c.Flags().Var(cmdutil.Duration(&o.Heartbeat, 15*time.Second), "heartbeat", "report a running step on stderr this often (0: never)")
	}
	cmd.AddCommand(newCompileCmd(f), run, resume, newStatusCmd(f), newListCmd(f))
	return cmd
}

func newCompileCmd(f *cmdutil.Factory) *cobra.Command {
	var vars []string
	cmd := &cobra.Command{
		Use:   "compile FILE [--var K=V]...",
		Short: "Check a workflow and print its execution plan",
		Args:  cmdutil.ExactArgs(1, "a workflow file (PATTERN.md)"),
		RunE: func(c *cobra.Command, args []string) error {
			plan, err := compile(args[0], vars)
			if err != nil {
				return err
			}
			if f.JSON {
				return f.IO.PrintJSON(plan)
			}
			plan.Render(f.IO.Out)
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&vars, "var", nil, "set a variable declared in the front matter: K=V (repeatable)")
	return cmd
}

func newStatusCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "status ID",
		Short: "Show a run: its state, each step's result, and why it failed",
		Args:  cmdutil.ExactArgs(1, "a workflow run id (see `csa workflow list`)"),
		RunE: func(c *cobra.Command, args []string) error {
			store := wf.OpenStore(f.StateDir())
			id, err := resolve(store, args[0])
			if err != nil {
				return err
			}
			st, err := store.Status(id)
			if err != nil {
				return err
			}
			return show(f, st)
		},
	}
}

func newListCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the workflow runs",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			store := wf.OpenStore(f.StateDir())
			ids, err := store.IDs()
			if err != nil {
				return err
			}
			runs := []*wf.Status{}
			for _, id := range ids {
				st, err := store.Status(id)
				if err != nil {
					return err
				}
				st.Steps = nil
				runs = append(runs, st)
			}
			if f.JSON {
				return f.IO.PrintJSON(runs)
			}
			for _, st := range runs {
				fmt.Fprintf(f.IO.Out, "%s\t%s\t%s\t%s\n", st.RunID, st.State, st.Name, st.File)
			}
			return nil
		},
	}
}

// compile reads the file; any mistake in it is a usage error (exit 2).
func compile(file string, kvs []string) (*wf.Plan, error) {
	vars := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, cmdutil.Usagef("--var %q: want K=V", kv)
		}
		vars[k] = v
	}
	plan, err := wf.Compile(file, vars)
	if err != nil {
		return nil, &cmdutil.Error{Code: "invalid_workflow", Exit: cmdutil.ExitUsage, Err: err}
	}
	return plan, nil
}

// Run compiles and runs a workflow.
func Run(ctx context.Context, o *Options) error {
	plan, err := compile(o.File, o.Vars)
	if err != nil {
		return err
	}
	if o.Isolate != "" {
		if _, err := sandbox.ParseIsolate(o.Isolate); err != nil {
			return cmdutil.Usagef("--isolate: %v", err)
		}
		plan.Isolate = o.Isolate // kept in the run's journal: a resume keeps it
	}
	if !(o.MaxCost >= 0) { // NaN too
		return cmdutil.Usagef("--max-cost %v is not an amount of USD (0 or more)", o.MaxCost)
	}
	plan.MaxCostUSD = o.MaxCost // kept in the journal too
	cwd, err := filepath.Abs(".")
	if err != nil {
		return err
	}
	store := wf.OpenStore(o.F.StateDir())
	info, err := store.Create(plan, cwd, o.F.Now())
	if err != nil {
		return err
	}
	if o.F.JSON {
		fmt.Fprintf(o.F.IO.ErrOut, "csa workflow: run %s\n", info.ID)
	} else {
		fmt.Fprintln(o.F.IO.Out, info.ID)
	}
	return execute(ctx, o, store, info)
}

// Resume continues a run from its journal.
func Resume(ctx context.Context, o *Options) error {
	store := wf.OpenStore(o.F.StateDir())
	id, err := resolve(store, o.ID)
	if err != nil {
		return err
	}
	st, err := store.Status(id)
	if err != nil {
		return err
	}
	if st.State == wf.RunCompleted {
		fmt.Fprintf(o.F.IO.ErrOut, "csa workflow: run %s already completed: nothing to resume\n", id)
		return show(o.F, st)
	}
	info, err := store.Info(id)
	if err != nil {
		return err
	}
	return execute(ctx, o, store, info)
}

func execute(ctx context.Context, o *Options, store *wf.Store, info *wf.RunInfo) error {
	f := o.F
	l, err := store.Lock(info.ID)
	if errors.Is(err, wf.ErrRunning) {
		return cmdutil.Refused("workflow_running", err)
	}
	if err != nil {
		return err
	}
	defer l.Release()
	exe, err := f.Executable()
	if err != nil {
		return fmt.Errorf("find csa itself: %w", err)
	}
	sessions, err := f.Store(mustRoot(f, info.Dir))
	if err != nil {
		return err
	}
	out, runErr := wf.Execute(ctx, store, info, wf.Env{
		Exe: exe, Environ: f.Environ(), Heartbeat: o.Heartbeat, Grace: 5 * time.Second, Now: f.Now,
		Session:  func(ctx context.Context, id string) (*session.State, error) { return f.Current(ctx, sessions, id) },
		Progress: func(msg string) { fmt.Fprintf(f.IO.ErrOut, "csa workflow: %s\n", msg) },
	})
	if out == nil {
		return runErr
	}
	st, err := store.Status(info.ID)
	if err != nil {
		return err
	}
	if runErr == nil || !f.JSON {
		if err := show(f, st); err != nil {
			return err
		}
	}
	switch {
	case runErr != nil:
		return runErr
	case out.Status == wf.RunFailed:
		return &cmdutil.Silent{Exit: cmdutil.ExitFailed}
	}
	return nil
}

// mustRoot is the project of the run's directory, or the directory itself.
func mustRoot(f *cmdutil.Factory, dir string) string {
	if root, err := f.ProjectRoot(dir); err == nil {
		return root
	}
	return dir
}

func resolve(store *wf.Store, prefix string) (string, error) {
	id, err := store.Resolve(prefix)
	var nf *wf.NotFoundError
	if errors.As(err, &nf) {
		return "", &cmdutil.Error{Code: "not_found", Exit: cmdutil.ExitUsage, Err: err}
	}
	if err != nil {
		return "", &cmdutil.Error{Code: "invalid_id", Exit: cmdutil.ExitUsage, Err: err}
	}
	return id, nil
}

func show(f *cmdutil.Factory, st *wf.Status) error {
	if f.JSON {
		return f.IO.PrintJSON(st)
	}
	st.Render(f.IO.Out)
	return nil
}
