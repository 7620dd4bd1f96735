package review

import (
	"fmt"
	"strings"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/toolcache"
)

// Candidate is a tool csa may ask, with its model family ("" when it
// cannot be told, as for opencode without a configured model).
type Candidate struct {
	Tool   agents.Tool
	Model  string // the configured model, "" for the tool's own default
	Family string
}

// Candidates lists the enabled, installed tools in csa's stable order, and
// why each other tool is not one.
func Candidates(cfg *config.Config) (cands []Candidate, skipped []string) {
	for _, s := range agents.Registry {
		t := s.Tool
		tc := cfg.Tool(string(t))
		switch {
		case !tc.Enabled:
			skipped = append(skipped, string(t)+" (disabled)")
		case !installed(tc.Path, s.Program):
			skipped = append(skipped, string(t)+" (not installed)")
		default:
			cands = append(cands, Candidate{Tool: t, Model: tc.Model, Family: cfg.Family(t)})
		}
	}
	return cands, skipped
}

func installed(path string, p agents.Program) bool {
	_, err := toolcache.Locate(path, p)
	return err == nil
}

// Party is a tool the chosen ones must not share a model family with:
// the caller, or the author of the change under review.
type Party struct {
	Role   string // "caller", "author"
	Tool   agents.Tool
	Family string // "" when it cannot be told
}

// avoided reports whether c shares a party's family: the same known
// family, or an unknown one (it could be the party's).
func avoided(c Candidate, parties []Party) bool {
	for _, p := range parties {
		if p.Tool != "" && (c.Family == "" || c.Family == p.Family) {
			return true
		}
	}
	return false
}

// NoToolError reports that no sub-agent can be chosen.
type NoToolError struct {
	Need  string  // what was asked for
	Avoid []Party // whose families were avoided
	Tried []string
}

func (e *NoToolError) Error() string {
	var who []string
	for _, p := range e.Avoid {
		if p.Tool != "" {
			who = append(who, fmt.Sprintf("the %s is %s, family %s", p.Role, p.Tool, orUnknown(p.Family)))
		}
	}
	s := "no " + e.Need
	if len(who) > 0 {
		s += " (" + strings.Join(who, "; ") + ")"
	}
	return s + ": " + strings.Join(e.Tried, ", ")
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// otherThan names what is asked for: a tool of another model family than
// the parties'.
func otherThan(what string, parties []Party) string {
	var roles []string
	for _, p := range parties {
		if p.Tool != "" {
			roles = append(roles, "the "+p.Role+"'s")
		}
	}
	if len(roles) == 0 {
		return what
	}
	return what + " of another model family than " + strings.Join(roles, " and ")
}

// PickReviewers chooses n reviewers. None shares a party's family (the
// caller's, the change's author's), nor is of an unknown family when a
// party is known (it could be the party's). Each family is used once, in
// csa's tool order, before any is used again; a family is reused only
// when fewer than n are available, taking its other tools before
// repeating one.
func PickReviewers(cands []Candidate, skipped []string, avoid []Party, n int) ([]Candidate, error) {
	var first, rest []Candidate
	seen := map[string]bool{}
	tried := append([]string(nil), skipped...)
	for _, c := range cands {
		if avoided(c, avoid) {
			tried = append(tried, fmt.Sprintf("%s (family %s)", c.Tool, orUnknown(c.Family)))
			continue
		}
		key := c.Family
		if key == "" {
			key = "tool:" + string(c.Tool) // unknown: a family of its own
		}
		if seen[key] {
			rest = append(rest, c)
			continue
		}
		seen[key] = true
		first = append(first, c)
	}
	order := append(first, rest...)
	if len(order) == 0 {
		return nil, &NoToolError{Need: otherThan("reviewer", avoid), Avoid: avoid, Tried: tried}
	}
	out := make([]Candidate, n)
	for i := range out {
		out[i] = order[i%len(order)]
	}
	return out, nil
}

// PickOther chooses one tool (a merge's resolver) of another family than
// every party's, the first in csa's tool order.
func PickOther(cands []Candidate, skipped []string, what string, avoid []Party) (Candidate, error) {
	tried := append([]string(nil), skipped...)
	for _, c := range cands {
		if !avoided(c, avoid) {
			return c, nil
		}
		tried = append(tried, fmt.Sprintf("%s (family %s)", c.Tool, orUnknown(c.Family)))
	}
	return Candidate{}, &NoToolError{Need: otherThan(what, avoid), Avoid: avoid, Tried: tried}
}

// PickDebaters chooses a proposer and a critic of two different, known
// families, preferring families other than the caller's: the caller's
// family takes part only when there is no other pair.
func PickDebaters(cands []Candidate, skipped []string, caller agents.Tool, callerFamily string) (proposer, critic Candidate, err error) {
	var others, own []Candidate
	seen := map[string]bool{}
	tried := append([]string(nil), skipped...)
	for _, c := range cands {
		switch {
		case c.Family == "":
			tried = append(tried, fmt.Sprintf("%s (family unknown)", c.Tool))
		case seen[c.Family]:
		case caller != "" && c.Family == callerFamily:
			seen[c.Family] = true
			own = append(own, c)
		default:
			seen[c.Family] = true
			others = append(others, c)
		}
	}
	all := append(others, own...)
	if len(all) < 2 {
		for _, c := range all {
			tried = append(tried, fmt.Sprintf("%s (family %s)", c.Tool, c.Family))
		}
		return Candidate{}, Candidate{}, &NoToolError{Need: "two installed tools of different model families", Tried: tried}
	}
	return all[0], all[1], nil
}
