package cost

import (
	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/session"
)

// Tokens are a session's tokens by kind, as priced: Input is uncached
// input only, whichever way the program counted it.
type Tokens struct {
	Input      int64 `json:"input_tokens"`
	Output     int64 `json:"output_tokens"`
	CacheRead  int64 `json:"cache_read_tokens"`
	CacheWrite int64 `json:"cache_write_tokens"`
}

// Add returns the sum of t and u.
func (t Tokens) Add(u Tokens) Tokens {
	return Tokens{t.Input + u.Input, t.Output + u.Output, t.CacheRead + u.CacheRead, t.CacheWrite + u.CacheWrite}
}

// Total is every token of t.
func (t Tokens) Total() int64 { return t.Input + t.Output + t.CacheRead + t.CacheWrite }

// TokensOf normalises the usage a tool's program reported: Codex and
// Gemini CLI count cached input in their input tokens, the others do not
// (agents.Spec.InputCountsCached).
func TokensOf(tool string, u *session.Usage) Tokens {
	if u == nil {
		return Tokens{}
	}
	t := Tokens{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CachedTokens}
	if spec, ok := agents.Lookup(tool); ok && spec.InputCountsCached {
		t.Input = max(0, t.Input-t.CacheRead)
	}
	return t
}

// Of is what tokens of a model cost in USD; ok is false when the table
// has no price for the model.
func (t Table) Of(model string, tok Tokens) (usd float64, ok bool) {
	p, ok := t.Lookup(model)
	if !ok {
		return 0, false
	}
	return (float64(tok.Input)*p.Input + float64(tok.Output)*p.Output +
		float64(tok.CacheRead)*p.CacheRead + float64(tok.CacheWrite)*p.CacheWrite) / 1e6, true
}

// Session is what one session cost: nil when it recorded no usage or its
// model has no price. A session that used no tokens cost nothing, whatever
// its model.
func (t Table) Session(st *session.State) *float64 {
	if st.Usage == nil {
		return nil
	}
	tok := TokensOf(st.Tool, st.Usage)
	if tok.Total() == 0 {
		zero := 0.0
		return &zero
	}
	usd, ok := t.Of(st.Model, tok)
	if !ok {
		return nil
	}
	return &usd
}

// Tree is what a session and its descendants cost.
type Tree struct {
	// USD sums the sessions whose cost is known.
	USD float64 `json:"cost_usd"`
	// Unpriced counts the sessions that used tokens of a model with no
	// price: USD leaves them out.
	Unpriced int `json:"unpriced_sessions,omitempty"`
}

// TreeOf is what the session id and its descendants among states cost.
func (t Table) TreeOf(states []*session.State, id string) Tree {
	byID := make(map[string]*session.State, len(states))
	for _, st := range states {
		byID[st.ID] = st
	}
	var tr Tree
	for _, d := range append(session.Descendants(session.Children(states), id), id) {
		st, ok := byID[d]
		if !ok || st.Usage == nil {
			continue
		}
		if c := t.Session(st); c != nil {
			tr.USD += *c
		} else {
			tr.Unpriced++
		}
	}
	return tr
}
