package review

import "fmt"

// Consensus strategies.
const (
	Majority  = "majority"  // more pass than fail among the available verdicts
	Unanimous = "unanimous" // every available verdict is pass
	Weighted  = "weighted"  // configured weights of pass against fail
)

// NoConsensus is the combined verdict when the reviewers do not settle it.
const NoConsensus = "no_consensus"

// ValidStrategy reports whether s is a consensus strategy.
func ValidStrategy(s string) bool { return s == Majority || s == Unanimous || s == Weighted }

// Vote is one reviewer's verdict and, for weighted consensus, its weight.
type Vote struct {
	Verdict string
	Weight  float64
}

// Tally counts the verdicts and, for weighted consensus, sums the weights.
type Tally struct {
	Pass        int      `json:"pass"`
	Fail        int      `json:"fail"`
	Uncertain   int      `json:"uncertain"`
	Unavailable int      `json:"unavailable"`
	PassWeight  *float64 `json:"pass_weight,omitempty"`
	FailWeight  *float64 `json:"fail_weight,omitempty"`
}

// Decide combines votes. Uncertain verdicts count as neither pass nor
// fail; unavailable ones are not verdicts at all. No available verdict, or
// a tie, is no consensus. Unanimous passes only when every available
// verdict is pass, fails when any is fail, and otherwise (pass and
// uncertain, or only uncertain) has no consensus.
func Decide(strategy string, votes []Vote) (string, Tally) {
	var t Tally
	var pw, fw float64
	for _, v := range votes {
		switch v.Verdict {
		case Pass:
			t.Pass++
			pw += v.Weight
		case Fail:
			t.Fail++
			fw += v.Weight
		case Uncertain:
			t.Uncertain++
		default:
			t.Unavailable++
		}
	}
	if t.Pass+t.Fail+t.Uncertain == 0 {
		return NoConsensus, t
	}
	switch strategy {
	case Unanimous:
		switch {
		case t.Fail > 0:
			return Fail, t
		case t.Uncertain == 0:
			return Pass, t
		}
		return NoConsensus, t
	case Weighted:
		t.PassWeight, t.FailWeight = &pw, &fw
		return compare(pw, fw), t
	}
	return compare(float64(t.Pass), float64(t.Fail)), t
}

func compare(pass, fail float64) string {
	switch {
	case pass > fail:
		return Pass
	case fail > pass:
		return Fail
	}
	return NoConsensus
}

// WeightOf is a reviewer's weight: weights["tool/model"] first, then
// weights["tool"], else 1.
func WeightOf(weights map[string]float64, tool, model string) float64 {
	if model != "" {
		if w, ok := weights[tool+"/"+model]; ok {
			return w
		}
	}
	if w, ok := weights[tool]; ok {
		return w
	}
	return 1
}

// Describe is a one-line account of a tally, such as
// "2 pass, 1 fail, 0 uncertain, 1 unavailable (weights 3 pass, 1 fail)".
func (t Tally) Describe() string {
	s := fmt.Sprintf("%d pass, %d fail, %d uncertain, %d unavailable", t.Pass, t.Fail, t.Uncertain, t.Unavailable)
	if t.PassWeight != nil {
		s += fmt.Sprintf(" (weights %g pass, %g fail)", *t.PassWeight, *t.FailWeight)
	}
	return s
}
