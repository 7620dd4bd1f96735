package review

import (
	"context"
	"fmt"
	"sync"
)

// Reviewer is one reviewer's part of a report.
type Reviewer struct {
	Tool      string    `json:"tool"`
	Model     string    `json:"model"`
	SessionID string    `json:"session_id"`
	Verdict   string    `json:"verdict"` // pass, fail, uncertain or unavailable
	Findings  []Finding `json:"findings"`
	// Status is the reviewer's session status ("" when csa refused to
	// start it).
	Status string `json:"status"`
	// Reason says why the reviewer is unavailable.
	Reason     string   `json:"reason,omitempty"`
	Weight     *float64 `json:"weight,omitempty"` // weighted consensus only
	DurationMS int64    `json:"duration_ms"`
}

// Report is review.json, and the answer of `csa review --json`.
type Report struct {
	SessionID string     `json:"session_id"`
	Verdict   string     `json:"verdict"`   // pass, fail or no_consensus
	Consensus string     `json:"consensus"` // the strategy
	Tally     Tally      `json:"tally"`
	Caller    string     `json:"caller,omitempty"` // the calling tool, if known
	Change    *Change    `json:"change"`
	Reviewers []Reviewer `json:"reviewers"`
	ExitCode  int        `json:"exit_code"`
	// Interrupted is set when the review was stopped before its end.
	Interrupted string `json:"interrupted,omitempty"`
}

// Review exit statuses.
const (
	ExitPass        = 0
	ExitFail        = 1
	ExitNoConsensus = 2
)

// ExitFor maps a combined verdict to the review's exit status.
func ExitFor(verdict string) int {
	switch verdict {
	case Pass:
		return ExitPass
	case Fail:
		return ExitFail
	}
	return ExitNoConsensus
}

// Review asks every pick, concurrently, to review with prompt, and
// combines their verdicts with strategy (weights for weighted). say
// reports progress; it must be safe for concurrent use.
func Review(ctx context.Context, r *Runner, picks []Candidate, prompt, strategy string, weights map[string]float64, say func(string)) ([]Reviewer, string, Tally) {
	out := make([]Reviewer, len(picks))
	var wg sync.WaitGroup
	for i, c := range picks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = ask(ctx, r, c, prompt)
			rv := &out[i]
			msg := fmt.Sprintf("%s (session %s): %s", rv.Tool, orNone(rv.SessionID), rv.Verdict)
			if rv.Reason != "" {
				msg += ": " + rv.Reason
			}
			say(msg)
		}()
	}
	wg.Wait()
	votes := make([]Vote, len(out))
	for i := range out {
		votes[i] = Vote{Verdict: out[i].Verdict, Weight: 1}
		if strategy == Weighted {
			w := WeightOf(weights, out[i].Tool, out[i].Model)
			out[i].Weight, votes[i].Weight = &w, w
		}
	}
	verdict, tally := Decide(strategy, votes)
	return out, verdict, tally
}

// ask runs one reviewer and reads its verdict; a run that failed, or an
// answer without a verdict block, is unavailable, never fail.
func ask(ctx context.Context, r *Runner, c Candidate, prompt string) Reviewer {
	rv := Reviewer{Tool: string(c.Tool), Model: c.Model, Verdict: Unavailable, Findings: []Finding{}}
	res, err := r.Start(ctx, string(c.Tool), "", prompt)
	if err != nil {
		rv.Reason = err.Error()
		return rv
	}
	rv.SessionID, rv.Model, rv.Status, rv.DurationMS = res.SessionID, res.Model, string(res.Status), res.DurationMS
	if why := res.Failed(); why != "" {
		rv.Reason = "the run ended " + why
		return rv
	}
	b, ok := ParseReview(res.Result)
	if !ok {
		rv.Reason = "no verdict block in the answer"
		return rv
	}
	rv.Verdict = b.Verdict
	if b.Findings != nil {
		rv.Findings = b.Findings
	}
	return rv
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
