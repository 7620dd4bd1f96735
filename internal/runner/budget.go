package runner

import (
	"fmt"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cost"
	"github.com/csa-dev/csa/internal/session"
)

// budgetPoll is how often a run with --max-cost sums its tree's cost:
// its descendants' costs are in the store once they end.
const budgetPoll = time.Second

// budget follows what a run's tree has cost against its --max-cost: the
// usage its own program reported so far, and its descendants' recorded
// usage. Sessions of a model without a price count nothing: csa never
// guesses a price.
type budget struct {
	max    float64
	prices cost.Table
	mu     sync.Mutex
	used   session.Usage
	model  string // the model the program said it uses, else the one asked for
}

func newBudget(sp *Spec, model string) *budget {
	if sp.MaxCostUSD <= 0 {
		return nil
	}
	return &budget{max: sp.MaxCostUSD, prices: cost.Default().With(sp.Prices), model: model}
}

// note takes the program's usage and model from its events.
func (b *budget) note(e agents.Event) {
	switch d := e.Data.(type) {
	case session.Usage:
		b.mu.Lock()
		b.used.InputTokens += d.InputTokens
		b.used.OutputTokens += d.OutputTokens
		b.used.CachedTokens += d.CachedTokens
		b.used.CacheWriteTokens += d.CacheWriteTokens
		b.mu.Unlock()
	case agents.SessionEvent:
		if d.Model != "" {
			b.mu.Lock()
			b.model = d.Model
			b.mu.Unlock()
		}
	}
}

// check sums the tree of session id, its own usage from b, and returns
// the ending that stops the run once the sum passes the budget.
func (b *budget) check(store *session.Store, id, tool string) *ending {
	b.mu.Lock()
	used, model := b.used, b.model
	b.mu.Unlock()
	own := b.prices.Usage(tool, model, &used)
	priced := []cost.Priced{{ID: id, USD: own, Used: true}}
	ents, _ := store.Summaries() // unreadable: the run's own cost still counts
	for _, e := range ents {
		if e.Summary != nil && e.Summary.ID != id {
			priced = append(priced, b.prices.PricedOf(e.Summary))
		}
	}
	tree := cost.Trees(priced)[id]
	if tree.USD == nil || *tree.USD <= b.max {
		return nil
	}
	return &ending{session.Failed, session.FailBudget,
		fmt.Sprintf("the run and the runs it started cost %s, over --max-cost %s", cost.Format(*tree.USD), cost.Format(b.max))}
}
