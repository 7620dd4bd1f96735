package change

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/takeback"
)

// mergedView is one change of csa merge --json's answer.
type mergedView struct {
	SessionID string `json:"session_id"`
	Branch    string `json:"branch"`
	Status    string `json:"status"`           // merged or blocked
	Commit    string `json:"commit,omitempty"` // merged: the commit it made
	// Paths conflict with the current branch (with the changes merged
	// before it in a queue); empty when merged.
	Paths []string `json:"paths"`
	// Hunks: both sides of each conflicting path (blocked).
	Hunks []sidesView `json:"hunks,omitempty"`
	// Resolution: what --resolve did with it, when it was blocked.
	Resolution *resolutionView `json:"resolution,omitempty"`
}

// mergeView is csa merge --json's answer.
type mergeView struct {
	Strategy takeback.Strategy `json:"strategy"`
	From     string            `json:"from"` // the branch's commit before
	To       string            `json:"to"`   // and after
	Results  []mergedView      `json:"results"`
	RawBytes map[string]string `json:"raw_bytes,omitempty"`
}

// NewMergeCmd builds `csa merge`.
func NewMergeCmd(f *cmdutil.Factory) *cobra.Command {
	var squash, rebase, queue, resolveIt bool
	var tool string
	var from source
	cmd := &cobra.Command{
		Use:   "merge ID [--squash | --rebase] [--resolve [--tool T]] | merge --queue (ID... | --batch ID | --plan PLAN | --workflow RUN_ID)",
		Short: "Merge a worktree run's change into the current branch",
		Long: `Merge what a run in a worktree of its own (csa run --worktree) changed into
the current branch: only the run's own change, never the commit that carried
the caller's uncommitted changes to it. By default a merge commit, --squash one
new commit, --rebase the run's commits replayed; the run's author and message
are kept. The result is made with git merge-tree before the work tree is
touched: a change that conflicts leaves nothing half-merged (its paths are
listed), and local changes git would not overwrite refuse the whole merge.
--queue merges several runs' changes one at a time in the order given, each
checked against the result so far: the clean ones are merged, the blocked ones
reported with their conflicting paths and both sides' hunks of each (ours: the
branch with the changes merged before it; theirs: the run's change; both
from the run's snapshot).
--batch ID, --plan PLAN (a csa todo plan) or --workflow RUN_ID queues the
changes of that batch's, plan's or workflow run's runs (--queue implied):
in the batch's or plan's task order as written, in the workflow's step
order. Only runs that completed with a change of their own (csa batch
--worktree, csa todo run --worktree, a workflow's worktree = true) are
taken; one that failed, never ran or ran in the caller's tree is left out
with a note on stderr (merge a failed run's change by its id). While a run
of it has not ended nothing is merged (exit 3, code running): merge once
it ends.
--resolve gives each change that conflicts, once the clean ones are merged,
to an agent of another model family than those that wrote the two sides
(--tool T to choose it): it runs as csa run --worktree on a commit holding
git's conflict markers, and its result is merged (with --squash or --rebase,
as one commit) only if it leaves no marker and passes csa review --session
of its run (reviewers of other families than the resolver's). Otherwise the
change stays blocked and the resolver's branch is kept for a look.
Exit status: 0 merged, 1 a change conflicts (nothing of it merged), 2 usage
(not in a git work tree, local changes in the way, no such batch, plan or
workflow run), 3 a session has no change (it ran in the caller's tree, or has
not ended; of a batch, plan or workflow run: none has one, or one has not
ended).`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch n := from.given(); {
			case n > 1:
				return cmdutil.Usagef("give one of --batch, --plan and --workflow")
			case n == 1 && len(args) > 0:
				return cmdutil.Usagef("give session ids or --%s, not both", from.flag())
			case n == 0 && (len(args) == 0 || (!queue && len(args) > 1)):
				return cmdutil.Usagef("give one session id, or several with --queue (see `csa merge --help`)")
			}
			if tool != "" && !resolveIt {
				return cmdutil.Usagef("--tool goes with --resolve")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			g := Git(f)
			if err := InWorkTree(ctx, g, "merge"); err != nil {
				return err
			}
			var changes []*takeback.Change
			if from.given() > 0 {
				queue = true
				var err error
				if changes, err = from.changes(ctx, f); err != nil {
					return err
				}
			}
			for _, a := range args {
				c, err := Local(ctx, f, a)
				if err != nil {
					return err
				}
				changes = append(changes, c)
			}
			s := takeback.Merge
			if squash {
				s = takeback.Squash
			} else if rebase {
				s = takeback.Rebase
			}
			o, err := takeback.MergeQueue(ctx, g, ".", changes, s)
			if err != nil {
				return dirty(err)
			}
			var resolved map[int]*resolutionView
			if resolveIt && o.Blocked() {
				if resolved, err = resolveBlocked(ctx, f, g, o, s, tool); err != nil {
					return dirty(err)
				}
			}
			if err := printMerge(f, s, o, queue, resolved); err != nil {
				return err
			}
			if o.Blocked() {
				return &cmdutil.Silent{Exit: cmdutil.ExitFailed}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&squash, "squash", false, "the change as one new commit")
	cmd.Flags().BoolVar(&rebase, "rebase", false, "the run's commits replayed on the current branch")
	cmd.Flags().BoolVar(&queue, "queue", false, "merge several runs' changes one at a time, in the order given")
	cmd.Flags().BoolVar(&resolveIt, "resolve", false, "give each change that conflicts to an agent, and merge its result once csa review passes it")
	cmd.Flags().StringVar(&tool, "tool", "", "with --resolve: the resolver's tool (default: the first of another model family than both sides')")
	cmd.Flags().StringVar(&from.Batch, "batch", "", "queue the changes of batch `ID`'s tasks, in its task order (--queue implied)")
	cmd.Flags().StringVar(&from.Plan, "plan", "", "queue the changes of todo plan `PLAN`'s tasks, in its task order (--queue implied)")
	cmd.Flags().StringVar(&from.Workflow, "workflow", "", "queue the changes of workflow run `RUN_ID`'s steps, in step order (--queue implied)")
	cmd.MarkFlagsMutuallyExclusive("squash", "rebase")
	return cmd
}

func printMerge(f *cmdutil.Factory, s takeback.Strategy, o *takeback.Outcome, queue bool, resolved map[int]*resolutionView) error {
	if f.JSON {
		v := &mergeView{Strategy: s, From: o.From, To: o.To, Results: []mergedView{}}
		for i, r := range o.Results {
			paths := r.Paths
			if paths == nil {
				paths = []string{}
			}
			v.Results = append(v.Results, mergedView{SessionID: r.Change.SessionID, Branch: r.Change.Branch,
				Status: r.Status, Commit: r.Commit, Paths: paths, Hunks: sidesViews(r.Sides), Resolution: resolved[i]})
		}
		return printJSON(f, v)
	}
	for i, r := range o.Results {
		rv := resolved[i]
		if r.Status == takeback.Merged {
			how := ""
			if rv != nil {
				how = fmt.Sprintf(", its conflicts resolved by %s (%s, branch %s) and reviewed by %s", rv.SessionID, rv.Tool, quoted(rv.Branch), rv.Review)
			}
			fmt.Fprintf(f.IO.Out, "%s: merged (%s) as %s%s\n", r.Change.SessionID, quoted(r.Change.Branch), short(r.Commit), how)
			continue
		}
		what := "conflicts with the current branch; nothing of it was merged"
		if queue {
			what = "blocked: it conflicts with the branch and the changes merged before it"
		}
		fmt.Fprintf(f.IO.ErrOut, "csa merge: %s %s. Conflicting paths:\n  %s\n", r.Change.SessionID, what, strings.Join(quotedAll(r.Paths), "\n  "))
		printSides(f.IO.ErrOut, r.Sides)
		if rv != nil {
			fmt.Fprintf(f.IO.ErrOut, "  not resolved: %s\n", rv.Error)
			if rv.Branch != "" {
				fmt.Fprintf(f.IO.ErrOut, "  the resolver's attempt is on branch %s\n", quoted(rv.Branch))
			}
		}
	}
	return nil
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
