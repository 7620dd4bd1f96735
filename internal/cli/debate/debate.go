// Package debate implements `csa debate`: a proposer and a critic of two
// model families take turns on a question, each in one session resumed
// every round, until the critic agrees or the rounds run out.
package debate

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	clireview "github.com/csa-dev/csa/internal/cli/review"
	"github.com/csa-dev/csa/internal/review"
)

// Options are the flags of `csa debate`.
type Options struct {
	F          *cmdutil.Factory
	Rounds     int
	PromptFile string
	Timeout    time.Duration
	Args       []string
}

// ReportFile is the debate's record in its session directory.
const ReportFile = "debate.json"

// NewCmd builds the command; runF replaces the run function in tests.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	o := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "debate [--rounds N] [QUESTION | - | -f FILE]",
		Short: "Have a proposer and a critic of two model families debate a question",
		Long: `Have two sub-agents of different model families debate a question: the
proposer answers, the critic judges the answer and ends with a verdict block
{"verdict": "agree|revise|reject", "reasoning": "..."}. Each round the
proposer sees the critic's last answer and the critic the proposer's latest,
each through a resume of its own session (csa run --session), for --rounds
rounds (default 2) or until the critic agrees. Families other than the
caller's are preferred. Both run read-only (--yolo=false).

The debate is a session of its own (tool "debate"), the parent of both
sub-agents' sessions; the result is saved there as debate.json. The final
verdict is the critic's last.

Exit status: 0 agree, 1 revise or reject, 2 no verdict (the critic gave
none, or a sub-agent failed) or a usage error, 3 refused before start,
130 interrupted.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Args = args
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return Run(cmd.Context(), o)
		},
	}
	cmd.Flags().IntVarP(&o.Rounds, "rounds", "r", 2, "the most rounds (1-10); each is a proposal and its critique")
	cmd.Flags().StringVarP(&o.PromptFile, "prompt-file", "f", "", "read the question from a file")
	cmd.Flags().Var(cmdutil.Duration(&o.Timeout, 0), "timeout", "stop each turn after this long (0: defaults.timeout, the default)")
	return cmd
}

// Run holds the debate and exits with its verdict.
func Run(ctx context.Context, o *Options) error {
	question, err := o.question()
	if err != nil {
		return err
	}
	if o.Rounds < 1 || o.Rounds > 10 {
		return cmdutil.Usagef("--rounds %d: want 1 to 10", o.Rounds)
	}
	team, err := clireview.NewTeam(o.F)
	if err != nil {
		return err
	}
	proposer, critic, err := review.PickDebaters(team.Cands, team.Skipped, team.Caller, team.CallerFamily)
	if err != nil {
		return clireview.Refused(err)
	}
	if err := team.CheckDepth("debate"); err != nil {
		return err
	}
	crew, err := team.Begin(ctx, review.KindDebate, []string{"--rounds", strconv.Itoa(o.Rounds)}, question, o.Timeout)
	if err != nil {
		return err
	}
	crew.Say(fmt.Sprintf("%s proposes, %s criticises, at most %d rounds", proposer.Tool, critic.Tool, o.Rounds))
	rep := review.Debate(crew.Ctx, crew.Runner, proposer, critic, question, o.Rounds, crew.Say)
	rep.SessionID = crew.Sess.ID()
	rep.ExitCode = review.DebateExit(rep.Verdict)
	if rep.Interrupted = crew.Interruption(); rep.Interrupted != "" {
		rep.ExitCode = cmdutil.ExitInterrupted
	}
	var b strings.Builder
	render(&b, &rep)
	summary := fmt.Sprintf("%s after %d of %d rounds", rep.Verdict, rep.RoundsRun, rep.Rounds)
	if rep.Error != "" {
		summary += ": " + rep.Error
	}
	class := "no_agreement"
	if rep.Verdict == review.NoVerdict {
		class = "no_verdict"
	}
	return crew.Finish(ReportFile, rep, b.String(), rep.ExitCode, summary, class)
}

func (o *Options) question() (string, error) {
	var q string
	switch {
	case o.PromptFile != "" && len(o.Args) > 0:
		return "", cmdutil.Usagef("give the question either as an argument or with --prompt-file, not both")
	case o.PromptFile != "":
		b, err := os.ReadFile(o.PromptFile)
		if err != nil {
			return "", cmdutil.Usagef("cannot read question file: %v", err)
		}
		q = string(b)
	case len(o.Args) == 1 && o.Args[0] == "-":
		b, err := io.ReadAll(o.F.IO.In)
		if err != nil && err != fs.ErrClosed {
			return "", cmdutil.Usagef("cannot read the question from standard input: %v", err)
		}
		q = string(b)
	default:
		q = strings.Join(o.Args, " ")
	}
	if strings.TrimSpace(q) == "" {
		return "", cmdutil.Usagef("no question: give it as an argument, \"-\" for standard input, or --prompt-file")
	}
	return q, nil
}

// render is the readable report.
func render(w io.Writer, r *review.DebateReport) {
	fmt.Fprintf(w, "debate %s: %s after %d of %d rounds (proposer %s %s, critic %s %s)\n",
		r.SessionID, r.Verdict, r.RoundsRun, r.Rounds, r.Proposer.Tool, orDash(r.Proposer.SessionID), r.Critic.Tool, orDash(r.Critic.SessionID))
	if r.Interrupted != "" {
		fmt.Fprintf(w, "interrupted: %s\n", r.Interrupted)
	}
	if r.Error != "" {
		fmt.Fprintf(w, "error: %s\n", r.Error)
	}
	if r.Reasoning != "" {
		fmt.Fprintf(w, "reasoning: %s\n", r.Reasoning)
	}
	if r.Proposal != "" {
		fmt.Fprintf(w, "final proposal:\n%s\n", indent(r.Proposal))
	}
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
