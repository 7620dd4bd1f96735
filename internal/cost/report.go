package cost

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/csa-dev/csa/internal/session"
)

// By is what a usage report groups sessions by: the closed set of csa
// usage --by.
type By string

// The groupings.
const (
	ByDay     By = "day"
	ByTool    By = "tool"
	ByModel   By = "model"
	ByProject By = "project"
)

// Groupings lists every By, for flags and messages.
var Groupings = []By{ByDay, ByTool, ByModel, ByProject}

// ParseBy validates a grouping.
func ParseBy(s string) (By, error) {
	if slices.Contains(Groupings, By(s)) {
		return By(s), nil
	}
	return "", fmt.Errorf("--by %q is not one of day, tool, model, project", s)
}

// NoModel is the model key of sessions run without naming one.
const NoModel = "(default)"

// Line is one group of a usage report, or its total.
type Line struct {
	Key      string `json:"key"`
	Sessions int    `json:"sessions"`
	// Tokens of every session, priced or not.
	Tokens
	TotalTokens int64 `json:"total_tokens"`
	// CostUSD sums the priced sessions; nil when none is.
	CostUSD *float64 `json:"cost_usd"`
	// Unpriced counts the sessions that used tokens of a model without
	// a price, UnpricedTokens their tokens: left out of CostUSD.
	Unpriced       int   `json:"unpriced_sessions"`
	UnpricedTokens int64 `json:"unpriced_tokens"`
	// UnpricedModels names their models.
	UnpricedModels []string `json:"unpriced_models,omitempty"`
}

// Report is csa usage's answer: a line per group, in key order, and
// their total.
type Report struct {
	By      By     `json:"by"`
	Since   string `json:"since,omitempty"`
	Checked string `json:"prices_checked"`
	Lines   []Line `json:"lines"`
	Total   Line   `json:"total"`
}

// Report sums the sessions created at or after since (zero for all) by
// group; loc is the time zone of days.
func (t Table) Report(states []*session.Summary, by By, since time.Time, loc *time.Location) Report {
	groups := map[string]*Line{}
	total := &Line{Key: "total"}
	for _, st := range states {
		if !since.IsZero() && st.CreatedAt.Before(since) {
			continue
		}
		key := keyOf(st, by, loc)
		g := groups[key]
		if g == nil {
			g = &Line{Key: key}
			groups[key] = g
		}
		for _, l := range []*Line{g, total} {
			l.add(t, st)
		}
	}
	r := Report{By: by, Checked: t.Checked, Lines: []Line{}}
	if !since.IsZero() {
		r.Since = since.Format(time.RFC3339)
	}
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		r.Lines = append(r.Lines, *groups[k])
	}
	r.Total = *total
	return r
}

func (l *Line) add(t Table, st *session.Summary) {
	l.Sessions++
	tok := TokensOf(st.Tool, st.Usage)
	l.Tokens = l.Tokens.Add(tok)
	l.TotalTokens += tok.Total()
	if st.Usage == nil {
		return
	}
	if c := t.Usage(st.Tool, Model(st.Model, st.ProviderModel), st.Usage); c != nil {
		l.CostUSD = plus(l.CostUSD, *c)
		return
	}
	l.Unpriced++
	l.UnpricedTokens += tok.Total()
	if m := modelKey(Model(st.Model, st.ProviderModel)); !slices.Contains(l.UnpricedModels, m) {
		l.UnpricedModels = append(l.UnpricedModels, m)
		slices.Sort(l.UnpricedModels)
	}
}

func keyOf(st *session.Summary, by By, loc *time.Location) string {
	switch by {
	case ByTool:
		return st.Tool
	case ByModel:
		return modelKey(Model(st.Model, st.ProviderModel))
	case ByProject:
		return st.ProjectRoot
	}
	return st.CreatedAt.In(loc).Format(time.DateOnly)
}

func modelKey(m string) string {
	if m == "" {
		return NoModel
	}
	return m
}
