// Package batch implements `csa batch`: a file of tasks with dependencies
// run as sub-agents, in parallel as the slots allow, with a summary; and
// its resume and status.
package batch

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/batch"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/sandbox"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/taskgraph"
)

const exitStatus = `Exit status: 0 every task completed, 1 a task failed, was blocked by one
that failed or was not run (--fail-fast), 2 usage error or invalid batch
file, 3 another csa batch runs this batch, 130 interrupted.`

// NewCmd builds `csa batch FILE` and its subcommands.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	var parallel int
	var failFast bool
	var tool string
	var worktree bool
	var isolate string
	var maxCost float64
	cmd := &cobra.Command{
		Use:   "batch FILE [--parallel N] [--fail-fast] [--tool TOOL] [--worktree] [--isolate WORDS] [--max-cost USD]",
		Short: "Run a file of tasks with dependencies as sub-agents, in parallel",
		Long: `Run the tasks of FILE (TOML [[task]] tables, or JSON {"tasks": [...]} or a
top-level array) as sub-agents: each a detached csa run (csa run -d --wait:
it queues for a slot of its tool's max_concurrent) started once the tasks
it depends_on have completed, up to --parallel at once (default 0: no bound
but the slots). The file is checked before anything runs: unknown keys,
missing ids or prompts, duplicate ids, unknown dependencies and cycles are
refused with the line they come from.

  [[task]]
  id = "schema"
  prompt = "Write the migration for the new table."
  tool = "codex"            # or tier = "main"; else --tool, else defaults.tool
  [[task]]
  id = "api"
  name = "the handlers"
  prompt = "Add the handlers."
  depends_on = ["schema"]
  model = "gpt-5"
  cwd = "server"            # relative to the file
  timeout = "20m"
  worktree = true           # its own git worktree (else --worktree decides)
  isolate = "fs"            # as csa run --isolate (else --isolate decides)

A failed task blocks the tasks that depend on it; the others go on
(--fail-fast: nothing more starts after the first failure; runs started
are waited for). The batch has an id and a journal under the state
directory recording each run's session before it is waited for: csa batch
resume ID continues a batch that was killed or interrupted, without running
completed tasks again and waiting for runs that are still going rather
than starting them twice. An interrupt (SIGINT, SIGTERM) stops starting and
waiting; the runs started go on (csa kill stops them).

--worktree runs each task in a git worktree of its own (csa run -w: a
branch csa/ID from the caller's HEAD and uncommitted changes), so that
tasks run in parallel never overwrite each other's files; a task's
worktree = false keeps it in the caller's tree. Each task's change is then
a branch: csa diff, apply, merge (--queue for all of them), see
docs/worktrees.md.

--isolate WORDS confines each task that has no isolate key as csa run
--isolate does (fs, net, fs,net or none; docs/sandbox.md); without either,
csa run's own defaults apply (tools.NAME.isolate, [sandbox] fs).

` + exitStatus,
		Args: cmdutil.ExactArgs(1, "a batch file (TOML or JSON)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if parallel < 0 {
				return cmdutil.Usagef("--parallel %d: want 0 (as the slots allow) or more", parallel)
			}
			if tool != "" && tool != "auto" {
				if _, err := agents.Parse(tool); err != nil {
					return err
				}
			}
			if isolate != "" {
				if _, err := sandbox.ParseIsolate(isolate); err != nil {
					return cmdutil.Usagef("--isolate: %v", err)
				}
			}
			if !(maxCost >= 0) { // NaN too
				return cmdutil.Usagef("--max-cost %v is not an amount of USD (0 or more)", maxCost)
			}
			tasks, err := batch.ReadFile(args[0])
			if err != nil {
				return classify(err)
			}
			s, cwd, err := store(f)
			if err != nil {
				return err
			}
			file, _ := filepath.Abs(args[0])
			b := &batch.Batch{File: file, Dir: cwd, Tool: tool, Parallel: parallel, FailFast: failFast, Worktree: worktree, Isolate: isolate, MaxCostUSD: maxCost, Tasks: tasks}
			if err := s.Create(b, f.Now()); err != nil {
				return err
			}
			say(f, fmt.Sprintf("batch %s: %d tasks (csa batch status %s; csa batch resume %s continues it if stopped)", b.ID, len(tasks), b.ID, b.ID))
			return run(cmd, f, s, b, batch.Options{})
		},
	}
	cmd.Flags().IntVar(&parallel, "parallel", 0, "tasks run at once, at most (0: as the tools' max_concurrent slots allow)")
	cmd.Flags().BoolVar(&failFast, "fail-fast", false, "start no task after the first failure (runs started are waited for)")
	cmd.Flags().StringVar(&tool, "tool", "", "the tool of tasks that name neither tool nor tier (default defaults.tool)")
	cmd.Flags().BoolVarP(&worktree, "worktree", "w", false, "run each task in a git worktree of its own (a task's worktree key overrides it)")
	cmd.Flags().Float64Var(&maxCost, "max-cost", 0, "stop each task's run, budget_exceeded, once it and the runs it started cost more than this many USD, as csa run --max-cost (0: no limit)")
	cmd.Flags().StringVar(&isolate, "isolate", "", "confine each task that has no isolate key: fs, net, fs,net or none, as csa run --isolate (default: csa run's)")
	cmd.AddCommand(newResume(f), newStatus(f))
	return cmd
}

func newResume(f *cmdutil.Factory) *cobra.Command {
	var parallel int
	cmd := &cobra.Command{
		Use:   "resume ID [--parallel N]",
		Short: "Continue a batch that was killed or interrupted",
		Long: `Continue batch ID with the tasks and options it was started with: completed
tasks are not run again, runs a killed csa batch started are waited for
(started again only if their session is gone), failed and blocked tasks
run afresh. --parallel, if given, bounds this run instead.

` + exitStatus,
		Args: cmdutil.ExactArgs(1, "a batch id (csa batch printed it)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, id, err := resolve(f, args[0])
			if err != nil {
				return err
			}
			b, err := s.Get(id)
			if err != nil {
				return err
			}
			var o batch.Options
			if cmd.Flags().Changed("parallel") {
				if parallel < 0 {
					return cmdutil.Usagef("--parallel %d: want 0 (as the slots allow) or more", parallel)
				}
				o.Parallel = &parallel
			}
			return run(cmd, f, s, b, o)
		},
	}
	cmd.Flags().IntVar(&parallel, "parallel", 0, "tasks run at once, at most, this time (default: as the batch was started)")
	return cmd
}

func newStatus(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "status ID",
		Short: "What became of a batch's tasks, from its journal",
		Long: `Show batch ID's tasks as its journal records them, and the batch's state:
running (a csa batch runs it), completed, failed (nothing is left to run)
or stopped (tasks are left: csa batch resume ID).`,
		Args: cmdutil.ExactArgs(1, "a batch id (csa batch printed it)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, id, err := resolve(f, args[0])
			if err != nil {
				return err
			}
			b, err := s.Get(id)
			if err != nil {
				return err
			}
			// Its runs are sessions of the project it ran in.
			root, err := f.ProjectRoot(b.Dir)
			if err != nil {
				return err
			}
			store, err := f.Store(root)
			if err != nil {
				return err
			}
			sum, err := batch.Status(s, id, &sessions{f: f, ctx: cmd.Context(), store: store})
			if err != nil {
				return err
			}
			return show(f, sum)
		},
	}
}

// run runs b and prints its summary; the exit status follows it.
func run(cmd *cobra.Command, f *cmdutil.Factory, s *batch.Store, b *batch.Batch, o batch.Options) error {
	exe, err := f.Executable()
	if err != nil {
		return fmt.Errorf("find csa itself: %w", err)
	}
	agents := &taskgraph.CSA{Launcher: taskgraph.Launcher{Exe: exe, Env: f.Environ(), Dir: b.Dir, Grace: 10 * time.Second}}
	o.Say, o.Now = func(m string) { say(f, m) }, f.Now
	sum, err := batch.Run(cmd.Context(), s, b.ID, agents, o)
	if err != nil {
		return classify(err)
	}
	if err := show(f, sum); err != nil {
		return err
	}
	switch {
	case sum.State == batch.Interrupted:
		return &cmdutil.Silent{Exit: cmdutil.ExitInterrupted}
	case !sum.OK():
		return &cmdutil.Silent{Exit: cmdutil.ExitFailed}
	}
	return nil
}

func show(f *cmdutil.Factory, sum *batch.Summary) error {
	if f.JSON {
		return f.IO.PrintJSON(sum)
	}
	return report(f.IO.Out, sum)
}

func say(f *cmdutil.Factory, msg string) { fmt.Fprintln(f.IO.ErrOut, "csa batch: "+msg) }

// store is the batch store of the current directory's project.
func store(f *cmdutil.Factory) (*batch.Store, string, error) {
	cwd, slug, err := f.CwdProject()
	if err != nil {
		return nil, "", err
	}
	return batch.ProjectStore(filepath.Join(f.ProjectsDir(), slug)), cwd, nil
}

// resolve opens the store and finds the batch arg names.
func resolve(f *cmdutil.Factory, arg string) (*batch.Store, string, error) {
	s, _, err := store(f)
	if err != nil {
		return nil, "", err
	}
	id, err := s.Resolve(arg)
	return s, id, classify(err)
}

// classify gives the batch package's errors their exit codes.
func classify(err error) error {
	var fe *batch.FileError
	var nf *batch.NotFoundError
	var amb *batch.AmbiguousError
	switch {
	case errors.As(err, &fe):
		return &cmdutil.Error{Code: "invalid_batch", Exit: cmdutil.ExitUsage, Err: err}
	case errors.As(err, &nf):
		return &cmdutil.Error{Code: "not_found", Exit: cmdutil.ExitUsage, Err: err}
	case errors.As(err, &amb):
		return &cmdutil.Error{Code: "ambiguous_id", Exit: cmdutil.ExitUsage, Err: err}
	case errors.Is(err, batch.ErrBusy):
		return cmdutil.Refused("busy", err)
	}
	return err
}

// sessions reads a batch's runs from the session store of the project it
// ran in, each as csa wait sees it (a run whose supervisor died is
// settled crashed).
type sessions struct {
	f     *cmdutil.Factory
	ctx   context.Context
	store *session.Store
}

func (s *sessions) Ended(id string) (taskgraph.Outcome, time.Time, bool, error) {
	st, err := s.f.Current(s.ctx, s.store, id)
	var nf *session.NotFoundError
	if errors.As(err, &nf) {
		return taskgraph.Outcome{}, time.Time{}, false, fmt.Errorf("session %s: %w", id, taskgraph.ErrNoSession)
	}
	if err != nil {
		return taskgraph.Outcome{}, time.Time{}, false, err
	}
	if !st.Status.Ended() {
		return taskgraph.Outcome{}, time.Time{}, false, nil
	}
	return taskgraph.OutcomeOf(st), st.EndedAt, true, nil
}
