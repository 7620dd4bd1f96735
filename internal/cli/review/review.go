// Package review implements `csa review`: reviewers of other model families
// than the caller's review a change read-only, and their structured
// verdicts are combined into one.
package review

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/review"
	"github.com/csa-dev/csa/internal/session"
)

// Options are the flags of `csa review`.
type Options struct {
	F         *cmdutil.Factory
	Diff      bool
	Range     string
	Branch    string
	Files     []string
	Session   string
	Args      []string
	Reviewers int
	Consensus string
	Timeout   time.Duration

	reviewersSet bool
}

// ReportFile is the review's record in its session directory.
const ReportFile = "review.json"

// NewCmd builds the command; runF replaces the run function in tests.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	o := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "review [--diff | --range A..B | --branch B | --files F... | --session ID] [--reviewers N] [--consensus STRATEGY]",
		Short: "Have reviewers of other model families review a change, and combine their verdicts",
		Long: `Have N reviewers review a change read-only, each a csa run of a model family
other than the caller's (and other than each other's while there are enough
families), and combine their structured verdicts.

The change is --diff (git diff HEAD: staged and unstaged; the default),
--range A..B (git diff A..B), --branch B (git diff B...HEAD), --files F...
(the files' content) or --session ID (the change a run in a worktree of its
own recorded, as csa diff ID prints it; exit 2, code no_change, when the
session has none; its reviewers are of other families than the run's own
tool too). The review is a session of its own (tool "review"),
the parent of its reviewers' sessions; the result is saved there as
review.json.

Each reviewer must end its answer with a JSON verdict block:
{"verdict": "pass|fail|uncertain", "findings": [{"file", "line", "severity", "message"}]}.
A reviewer that failed or gave no parseable verdict is unavailable, never fail.
Consensus: majority (more pass than fail), unanimous (every available verdict
pass; any fail fails) or weighted (review.weights by "tool/model", then
"tool", default 1); uncertain counts as neither; a tie or no verdict at all is
no consensus.

Exit status: 0 pass, 1 fail, 2 no consensus (or a usage error), 3 refused
before start, 130 interrupted.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Args = args
			o.reviewersSet = cmd.Flags().Changed("reviewers")
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return Run(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&o.Diff, "diff", false, "review the uncommitted changes: git diff HEAD (the default)")
	fl.StringVar(&o.Range, "range", "", "review the commits A..B: git diff A..B")
	fl.StringVar(&o.Branch, "branch", "", "review this branch's changes since B: git diff B...HEAD")
	fl.StringSliceVar(&o.Files, "files", nil, "review these files' content (more may follow as arguments)")
	fl.StringVar(&o.Session, "session", "", "review the change this worktree run recorded: csa diff ID")
	// No -n: in csa it means --dry-run (csa gc), as in make -n and git clean -n.
	fl.IntVar(&o.Reviewers, "reviewers", 0, "how many reviewers, 1-8 (default review.reviewers)")
	fl.StringVar(&o.Consensus, "consensus", "", "majority, unanimous or weighted (default review.consensus)")
	fl.Var(cmdutil.Duration(&o.Timeout, 0), "timeout", "stop each reviewer after this long (0: defaults.timeout, the default)")
	return cmd
}

// Run reviews the change and exits with the combined verdict.
func Run(ctx context.Context, o *Options) error {
	mode, ref, err := o.mode()
	if err != nil {
		return err
	}
	team, err := NewTeam(o.F)
	if err != nil {
		return err
	}
	n, strategy := team.Cfg.Review.Reviewers, team.Cfg.Review.Consensus
	if o.reviewersSet {
		n = o.Reviewers
	}
	if o.Consensus != "" {
		strategy = o.Consensus
	}
	switch {
	case n < 1 || n > 8:
		return cmdutil.Usagef("--reviewers %d: want 1 to 8", n)
	case !review.ValidStrategy(strategy):
		return cmdutil.Usagef("--consensus %q: want majority, unanimous or weighted", strategy)
	}
	var change *review.Change
	avoid := []review.Party{{Role: "caller", Tool: team.Caller, Family: team.CallerFamily}}
	if mode == review.ModeSession {
		var st *session.State
		if change, st, err = sessionChange(ctx, o.F, ref); st != nil {
			avoid = append(avoid, team.author(st))
		}
	} else {
		change, err = review.Collect(ctx, team.Cwd, o.F.Environ(), mode, ref, o.files())
	}
	var ue *review.UsageError
	switch {
	case errors.Is(err, review.ErrNothing):
		return cmdutil.Usagef("nothing to review: %s is empty", describeMode(mode, ref))
	case errors.As(err, &ue):
		return cmdutil.Usagef("%v", ue)
	case err != nil:
		return err
	}
	picks, err := review.PickReviewers(team.Cands, team.Skipped, avoid, n)
	if err != nil {
		return Refused(err)
	}
	if err := team.CheckDepth("review"); err != nil {
		return err
	}
	prompt := review.ReviewPrompt(change)
	crew, err := team.Begin(ctx, review.KindReview, o.record(mode, ref, n, strategy), prompt, o.Timeout)
	if err != nil {
		return err
	}
	tools := make([]string, len(picks))
	for i, p := range picks {
		tools[i] = string(p.Tool)
	}
	crew.Say(fmt.Sprintf("%s reviewed by %s (%s consensus)", describeMode(mode, ref), strings.Join(tools, ", "), strategy))
	reviewers, verdict, tally := review.Review(crew.Ctx, crew.Runner, picks, prompt, strategy, team.Cfg.Review.Weights, crew.Say)
	rep := &review.Report{
		SessionID: crew.Sess.ID(), Verdict: verdict, Consensus: strategy, Tally: tally,
		Caller: string(team.Caller), Change: change, Reviewers: reviewers, ExitCode: review.ExitFor(verdict),
		Interrupted: crew.Interruption(),
	}
	if rep.Interrupted != "" {
		rep.ExitCode = cmdutil.ExitInterrupted
	}
	summary := fmt.Sprintf("%s (%s: %s)", verdict, strategy, tally.Describe())
	var b strings.Builder
	render(&b, rep)
	class := "review_failed"
	if verdict != review.Fail {
		class = "no_consensus"
	}
	return crew.Finish(ReportFile, rep, b.String(), rep.ExitCode, summary, class)
}

// mode checks that at most one kind of change was asked for.
func (o *Options) mode() (mode, ref string, err error) {
	var modes []string
	if o.Diff {
		modes, mode = append(modes, "--diff"), review.ModeDiff
	}
	if o.Range != "" {
		modes, mode, ref = append(modes, "--range"), review.ModeRange, o.Range
	}
	if o.Branch != "" {
		modes, mode, ref = append(modes, "--branch"), review.ModeBranch, o.Branch
	}
	if len(o.Files) > 0 {
		modes, mode = append(modes, "--files"), review.ModeFiles
	}
	if o.Session != "" {
		modes, mode, ref = append(modes, "--session"), review.ModeSession, o.Session
	}
	switch {
	case len(modes) > 1:
		return "", "", cmdutil.Usagef("%s cannot be combined: give one change to review", strings.Join(modes, ", "))
	case len(o.Args) > 0 && mode != review.ModeFiles:
		return "", "", cmdutil.Usagef("unexpected argument %q (files to review follow --files)", o.Args[0])
	case mode == "":
		mode = review.ModeDiff
	}
	return mode, ref, nil
}

func (o *Options) files() []string { return append(append([]string(nil), o.Files...), o.Args...) }

// record is the review's command line, as its session records it.
func (o *Options) record(mode, ref string, n int, strategy string) []string {
	args := []string{"--" + mode}
	switch mode {
	case review.ModeRange, review.ModeBranch, review.ModeSession:
		args = append(args, ref)
	case review.ModeFiles:
		args = append(args, o.files()...)
	}
	return append(args, "--reviewers", strconv.Itoa(n), "--consensus", strategy)
}

func describeMode(mode, ref string) string {
	switch mode {
	case review.ModeRange:
		return "git diff " + ref
	case review.ModeBranch:
		return "git diff " + ref + "...HEAD"
	case review.ModeFiles:
		return "the files' content"
	case review.ModeSession:
		return "the change of session " + ref
	}
	return "git diff HEAD"
}

// render is the readable report.
func render(w io.Writer, r *review.Report) {
	fmt.Fprintf(w, "review %s: %s (%s: %s)\n", r.SessionID, r.Verdict, r.Consensus, r.Tally.Describe())
	if r.Interrupted != "" {
		fmt.Fprintf(w, "  interrupted: %s\n", r.Interrupted)
	}
	for _, rv := range r.Reviewers {
		name := rv.Tool
		if rv.Model != "" {
			name += "/" + rv.Model
		}
		line := fmt.Sprintf("  %-24s %-11s %s", name, rv.Verdict, orDash(rv.SessionID))
		if rv.Weight != nil {
			line += fmt.Sprintf("  weight %g", *rv.Weight)
		}
		if rv.Reason != "" {
			line += "  " + rv.Reason
		}
		fmt.Fprintln(w, line)
		for _, f := range rv.Findings {
			loc := f.File
			if f.Line > 0 {
				loc += ":" + strconv.Itoa(f.Line)
			}
			fmt.Fprintf(w, "      [%s] %s: %s\n", orDash(f.Severity), orDash(loc), f.Message)
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
