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

// NoToolError reports that no sub-agent can be chosen.
type NoToolError struct {
	Need   string // what was asked for
	Caller string // the caller's tool, if known
	Family string // the caller's family
	Tried  []string
}

func (e *NoToolError) Error() string {
	who := ""
	if e.Caller != "" {
		who = fmt.Sprintf(" (the caller is %s, family %s)", e.Caller, orUnknown(e.Family))
	}
	return fmt.Sprintf("no %s%s: %s", e.Need, who, strings.Join(e.Tried, ", "))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// PickReviewers chooses n reviewers. None is of the caller's family, nor
// of an unknown family when the caller is known (it could be the caller's).
// Each family is used once, in csa's tool order, before any is used again;
// a family is reused only when fewer than n are available, taking its
// other tools before repeating one.
func PickReviewers(cands []Candidate, skipped []string, caller agents.Tool, callerFamily string, n int) ([]Candidate, error) {
	var first, rest []Candidate
	seen := map[string]bool{}
	tried := append([]string(nil), skipped...)
	for _, c := range cands {
		if caller != "" && (c.Family == "" || c.Family == callerFamily) {
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
		return nil, &NoToolError{Need: "reviewer of another model family than the caller's", Caller: string(caller), Family: callerFamily, Tried: tried}
	}
	out := make([]Candidate, n)
	for i := range out {
		out[i] = order[i%len(order)]
	}
	return out, nil
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
