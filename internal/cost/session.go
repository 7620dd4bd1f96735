package cost

import (
	"math"

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
	t := Tokens{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CachedTokens, CacheWrite: u.CacheWriteTokens}
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
	return round((float64(tok.Input)*p.Input + float64(tok.Output)*p.Output +
		float64(tok.CacheRead)*p.CacheRead + float64(tok.CacheWrite)*p.CacheWrite) / 1e6), true
}

// round keeps ten places of a USD amount: finer than any price, and sums
// read 0.000226 rather than 0.00022600000000000002.
func round(usd float64) float64 { return math.Round(usd*1e10) / 1e10 }

// plus adds usd to a sum that may not have started.
func plus(sum *float64, usd float64) *float64 { return ptr(round(deref(sum) + usd)) }

// Session is what one session cost: nil when it recorded no usage or its
// model has no price.
func (t Table) Session(st *session.State) *float64 {
	return t.Usage(st.Tool, Model(st.Model, st.ProviderModel), st.Usage)
}

// Model is the model a session is priced as: the one its program said it
// used, else the one csa asked for.
func Model(asked, reported string) string {
	if reported != "" {
		return reported
	}
	return asked
}

// Usage is what a session of tool and model that recorded u cost: nil when
// u is nil or the model has no price. A session that used no tokens cost
// nothing, whatever its model.
func (t Table) Usage(tool, model string, u *session.Usage) *float64 {
	if u == nil {
		return nil
	}
	tok := TokensOf(tool, u)
	if tok.Total() == 0 {
		zero := 0.0
		return &zero
	}
	usd, ok := t.Of(model, tok)
	if !ok {
		return nil
	}
	return &usd
}

// Priced is one session as a tree's sum needs it.
type Priced struct {
	ID, ParentID string
	// USD is its cost, nil when unknown; Used: it recorded usage.
	USD  *float64
	Used bool
}

// PricedOf is a listed session with its cost.
func (t Table) PricedOf(sm *session.Summary) Priced {
	return Priced{ID: sm.ID, ParentID: sm.ParentID, USD: t.Usage(sm.Tool, Model(sm.Model, sm.ProviderModel), sm.Usage), Used: sm.Usage != nil}
}

// Tree is what a session and its descendants cost.
type Tree struct {
	// USD sums the sessions whose cost is known; nil when none is.
	USD *float64
	// Unpriced counts the sessions that recorded usage without a price:
	// USD leaves them out.
	Unpriced int
}

// Trees is what each session's tree cost, by session id: its own cost
// plus its descendants' among sessions.
func Trees(sessions []Priced) map[string]Tree {
	parent := make(map[string]string, len(sessions))
	for _, s := range sessions {
		parent[s.ID] = s.ParentID
	}
	out := make(map[string]Tree, len(sessions))
	for _, s := range sessions {
		if !s.Used {
			continue
		}
		// Up the ancestors; the bound stops a broken record's cycle.
		for id, up := s.ID, 0; id != "" && up <= maxUp; id, up = parent[id], up+1 {
			if _, ok := parent[id]; !ok {
				break
			}
			tr := out[id]
			if s.USD != nil {
				tr.USD = plus(tr.USD, *s.USD)
			} else {
				tr.Unpriced++
			}
			out[id] = tr
		}
	}
	return out
}

// TreeOf is what the session id and its descendants among states cost.
func (t Table) TreeOf(states []*session.State, id string) Tree {
	ps := make([]Priced, len(states))
	for i, st := range states {
		ps[i] = Priced{ID: st.ID, ParentID: st.ParentID, USD: t.Session(st), Used: st.Usage != nil}
	}
	return Trees(ps)[id]
}

// maxUp bounds a walk up a tree: deeper than csa lets runs nest.
const maxUp = 1000

func ptr(f float64) *float64 { return &f }

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

// View is what a session cost as csa inspect --json gives it (and csa ps
// --json, in its row).
type View struct {
	CostUSD *float64 `json:"cost_usd,omitempty"`
	// PriceUnknown: it used tokens of a model without a price.
	PriceUnknown bool `json:"price_unknown,omitempty"`
	// TreeCostUSD sums it with its descendants among the sessions given,
	// leaving out the TreeUnpriced ones whose model has no price.
	TreeCostUSD  *float64 `json:"tree_cost_usd,omitempty"`
	TreeUnpriced int      `json:"tree_unpriced_sessions,omitempty"`
}

// ViewOf is what st and its descendants among others cost (others may
// hold st itself: its own record is the one used).
func (t Table) ViewOf(st *session.State, others []*session.Summary) View {
	own := Priced{ID: st.ID, ParentID: st.ParentID, USD: t.Session(st), Used: st.Usage != nil}
	priced := []Priced{own}
	for _, sm := range others {
		if sm.ID != st.ID {
			priced = append(priced, t.PricedOf(sm))
		}
	}
	tr := Trees(priced)[st.ID]
	return View{CostUSD: own.USD, PriceUnknown: own.USD == nil && own.Used, TreeCostUSD: tr.USD, TreeUnpriced: tr.Unpriced}
}
