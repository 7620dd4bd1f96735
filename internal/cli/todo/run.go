package todo

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/sandbox"
	"github.com/csa-dev/csa/internal/taskgraph"
	"github.com/csa-dev/csa/internal/todo"
)

func newRun(f *cmdutil.Factory) *cobra.Command {
	var parallel int
	var tool string
	var worktree bool
	var isolate string
	var maxCost float64
	cmd := &cobra.Command{
		Use:   "run PLAN [--parallel N] [--tool TOOL] [--worktree] [--isolate WORDS] [--max-cost USD]",
		Short: "Run a plan's tasks as sub-agents, in dependency order",
		Long: `Run the tasks of an approved plan that are not done, each as a detached
csa run (csa run -d --wait: it queues for a slot of its tool's
max_concurrent) with the task's prompt: line(s), else its title, and its
tool: or tier:, else --tool, else defaults.tool. Up to --parallel tasks run
at once, each as soon as the tasks it depends on are done. Each run's
session is recorded in the plan when it starts, each task that completes
is marked done (a commit each), and a failed task stops the tasks that
depend on it while the others go on. The plan becomes implementing, and
done when every task is.

A csa todo run that dies (SIGKILL) leaves its runs running; the next csa
todo run of the plan waits for them rather than starting them again, and
does not run again what is done. A task whose run failed is started
afresh by the next csa todo run. An interrupt (SIGINT, SIGTERM) stops
starting and waiting: the runs started go on.

--worktree runs each task in a git worktree of its own (csa run -w), so
that tasks run at once never overwrite each other's files; a task's
worktree: true or false line decides for that task (docs/worktrees.md).

--isolate WORDS confines each task that has no isolate: line as csa run
--isolate does (fs, net, fs,net or none; docs/sandbox.md); without either,
csa run's own defaults apply.

Exit status: 0 every task done, 1 a task failed (or was blocked by one
that failed), 2 usage error or invalid plan, 3 the plan is a draft or
another csa todo run runs it, 130 interrupted.`,
		Args: cmdutil.ExactArgs(1, "a plan (see `csa todo list`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if parallel < 1 {
				return cmdutil.Usagef("--parallel %d: want 1 or more", parallel)
			}
			if isolate != "" {
				if _, err := sandbox.ParseIsolate(isolate); err != nil {
					return cmdutil.Usagef("--isolate: %v", err)
				}
			}
			if !(maxCost >= 0) { // NaN too
				return cmdutil.Usagef("--max-cost %v is not an amount of USD (0 or more)", maxCost)
			}
			s, id, err := resolve(f, args[0])
			if err != nil {
				return err
			}
			_, cwd, err := store(f)
			if err != nil {
				return err
			}
			exe, err := f.Executable()
			if err != nil {
				return fmt.Errorf("find csa itself: %w", err)
			}
			agents := &taskgraph.CSA{Launcher: taskgraph.Launcher{Exe: exe, Env: f.Environ(), Dir: cwd, Grace: 10 * time.Second}, Tool: tool, Isolate: isolate, MaxCostUSD: maxCost}
			if cmd.Flags().Changed("worktree") {
				agents.Worktree = &worktree
			}
			say := func(msg string) { fmt.Fprintln(f.IO.ErrOut, "csa todo: "+msg) }
			sum, err := todo.Run(cmd.Context(), s, id, agents, todo.RunOptions{Parallel: parallel, Say: say})
			if err != nil {
				return classify(err)
			}
			if f.JSON {
				if err := f.IO.PrintJSON(sum); err != nil {
					return err
				}
			} else {
				report(f.IO.Out, sum)
			}
			switch {
			case sum.Interrupted:
				return &cmdutil.Silent{Exit: cmdutil.ExitInterrupted}
			case sum.Failed+sum.Blocked > 0:
				return &cmdutil.Silent{Exit: cmdutil.ExitFailed}
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&parallel, "parallel", 4, "tasks run at once, at most")
	cmd.Flags().StringVar(&tool, "tool", "", "the tool of tasks that name neither tool: nor tier: (default defaults.tool)")
	cmd.Flags().BoolVarP(&worktree, "worktree", "w", false, "run each task in a git worktree of its own (a task's worktree: line overrides it)")
	cmd.Flags().Float64Var(&maxCost, "max-cost", 0, "stop each task's run, budget_exceeded, once it and the runs it started cost more than this many USD, as csa run --max-cost (0: no limit)")
	cmd.Flags().StringVar(&isolate, "isolate", "", "confine each task that has no isolate: line: fs, net, fs,net or none, as csa run --isolate (default: csa run's)")
	return cmd
}

func report(w io.Writer, s *todo.Summary) {
	fmt.Fprintf(w, "plan %s: %s (%d failed, %d blocked)\n", s.Plan, s.Status, s.Failed, s.Blocked)
	for _, t := range s.Tasks {
		line := fmt.Sprintf("  %-12s %-11s %s", t.ID, t.Outcome, orDash(t.SessionID))
		switch {
		case t.BlockedBy != "":
			line += "  after " + t.BlockedBy + ", which failed"
		case t.Reason != "":
			line += "  " + t.Reason
		}
		fmt.Fprintln(w, line)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
