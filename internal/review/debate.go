package review

import (
	"context"
	"fmt"
	"strings"
)

// Debate roles.
const (
	Proposer = "proposer"
	Critic   = "critic"
)

// NoVerdict is a debate's verdict when the critic's last answer held none,
// or a debater's run failed.
const NoVerdict = "no_verdict"

// Debater is one side of a debate: one session, resumed each round.
type Debater struct {
	Tool      string `json:"tool"`
	Model     string `json:"model"`
	SessionID string `json:"session_id"`
}

// Turn is one answer in a debate.
type Turn struct {
	Round     int    `json:"round"`
	Role      string `json:"role"`
	Tool      string `json:"tool"`
	SessionID string `json:"session_id"`
	Status    string `json:"status"`
	Answer    string `json:"answer"`
	Verdict   string `json:"verdict,omitempty"` // the critic's, when it gave one
	Error     string `json:"error,omitempty"`
}

// DebateReport is debate.json, and the answer of `csa debate --json`.
type DebateReport struct {
	SessionID string  `json:"session_id"`
	Question  string  `json:"question"`
	Rounds    int     `json:"rounds"`     // at most
	RoundsRun int     `json:"rounds_run"` // completed rounds
	Proposer  Debater `json:"proposer"`
	Critic    Debater `json:"critic"`
	Turns     []Turn  `json:"turns"`
	// Verdict is the critic's last: agree, revise or reject; no_verdict
	// when it gave none or a debater failed.
	Verdict   string `json:"verdict"`
	Reasoning string `json:"reasoning"`
	// Proposal is the proposer's last answer.
	Proposal    string `json:"proposal"`
	ExitCode    int    `json:"exit_code"`
	Error       string `json:"error,omitempty"`
	Interrupted string `json:"interrupted,omitempty"`
}

// Debate exit statuses.
const (
	ExitAgree     = 0
	ExitDisagree  = 1 // revise or reject
	ExitNoVerdict = 2
)

// DebateExit maps a debate's verdict to its exit status.
func DebateExit(verdict string) int {
	switch verdict {
	case Agree:
		return ExitAgree
	case Revise, Reject:
		return ExitDisagree
	}
	return ExitNoVerdict
}

// Debate runs up to rounds rounds. Each round the proposer answers (in
// round 1 the question, later the critic's last answer, in its resumed
// session), then the critic judges the proposer's latest answer (in its
// own resumed session) and ends with a verdict. The debate ends early when
// the critic agrees. say reports progress.
func Debate(ctx context.Context, r *Runner, proposer, critic Candidate, question string, rounds int, say func(string)) DebateReport {
	rep := DebateReport{
		Question: question, Rounds: rounds, Verdict: NoVerdict, Turns: []Turn{},
		Proposer: Debater{Tool: string(proposer.Tool), Model: proposer.Model},
		Critic:   Debater{Tool: string(critic.Tool), Model: critic.Model},
	}
	critique := ""
	for round := 1; round <= rounds; round++ {
		pt := turn(ctx, r, &rep.Proposer, round, Proposer, ProposerPrompt(round, rounds, question, critique))
		rep.Turns = append(rep.Turns, pt)
		say(fmt.Sprintf("round %d: %s proposed (session %s)%s", round, pt.Tool, orNone(pt.SessionID), errNote(pt)))
		if pt.Error != "" {
			rep.Verdict, rep.Reasoning = NoVerdict, ""
			rep.Error = "the proposer " + pt.Error
			return rep
		}
		rep.Proposal = pt.Answer
		ct := turn(ctx, r, &rep.Critic, round, Critic, CriticPrompt(round, rounds, question, pt.Answer))
		b, ok := ParseDebate(ct.Answer)
		if ok {
			ct.Verdict = b.Verdict
		}
		rep.Turns = append(rep.Turns, ct)
		say(fmt.Sprintf("round %d: %s criticised (session %s): %s%s", round, ct.Tool, orNone(ct.SessionID), orNone(ct.Verdict), errNote(ct)))
		if ct.Error != "" {
			rep.Verdict, rep.Reasoning = NoVerdict, ""
			rep.Error = "the critic " + ct.Error
			return rep
		}
		rep.RoundsRun = round
		critique = ct.Answer
		rep.Verdict, rep.Reasoning = NoVerdict, strings.TrimSpace(ct.Answer)
		if ok {
			rep.Verdict = b.Verdict
			if strings.TrimSpace(b.Reasoning) != "" {
				rep.Reasoning = strings.TrimSpace(b.Reasoning)
			}
		}
		if rep.Verdict == Agree {
			break
		}
	}
	return rep
}

// turn runs one debater's turn: its first starts its session, the next
// ones resume it.
func turn(ctx context.Context, r *Runner, d *Debater, round int, role, prompt string) Turn {
	t := Turn{Round: round, Role: role, Tool: d.Tool, SessionID: d.SessionID}
	var res *RunResult
	var err error
	if d.SessionID == "" {
		res, err = r.Start(ctx, d.Tool, "", prompt)
	} else {
		res, err = r.Resume(ctx, d.SessionID, prompt)
	}
	if err != nil {
		t.Error = err.Error()
		return t
	}
	if d.SessionID == "" {
		d.SessionID, d.Model = res.SessionID, res.Model
	}
	t.SessionID, t.Status, t.Answer = res.SessionID, string(res.Status), res.Result
	if why := res.Failed(); why != "" {
		t.Error = "run ended " + why
	}
	return t
}

func errNote(t Turn) string {
	if t.Error == "" {
		return ""
	}
	return ": " + t.Error
}
