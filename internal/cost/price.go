// Package cost prices what sessions used: a table of list prices per model
// (built in, overridable in config), the cost of one session from its
// recorded usage, of a session's tree, and reports over many sessions
// (csa usage). Costs are computed when read, from the usage and model each
// record holds; a model without a price has no cost, never a guessed one.
package cost

import (
	"maps"
	"slices"
	"strings"
)

// Price is what a model costs, in USD per million tokens.
type Price struct {
	Input      float64 `json:"input"`       // uncached input
	Output     float64 `json:"output"`      // output, reasoning included
	CacheRead  float64 `json:"cache_read"`  // input read from the provider's cache
	CacheWrite float64 `json:"cache_write"` // input written to the cache
}

// Table is a price list by model name. A name matches a model of that
// name, or that name followed by a version date ("claude-sonnet-4-5" prices
// "claude-sonnet-4-5-20250929" and "claude-sonnet-4-5@20250929"), never a
// different model that merely starts with it ("gpt-5" does not price
// "gpt-5-pro").
type Table struct {
	prices map[string]Price
	// Checked is when the built-in prices were last checked (YYYY-MM-DD).
	Checked string
}

// New returns a table of prices (keys are model names, any case).
func New(prices map[string]Price, checked string) Table {
	t := Table{prices: make(map[string]Price, len(prices)), Checked: checked}
	for k, p := range prices {
		t.prices[strings.ToLower(k)] = p
	}
	return t
}

// With returns t with overrides replacing or adding the prices of models.
func (t Table) With(overrides map[string]Price) Table {
	out := New(t.prices, t.Checked)
	for k, p := range overrides {
		out.prices[strings.ToLower(k)] = p
	}
	return out
}

// Models lists the priced model names, sorted.
func (t Table) Models() []string { return slices.Sorted(maps.Keys(t.prices)) }

// Lookup finds the price of a model as a program or config names it: a
// provider before a slash ("anthropic/claude-sonnet-4-5", as opencode
// names models) is ignored, and so is case.
func (t Table) Lookup(model string) (Price, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if m == "" {
		return Price{}, false
	}
	if p, ok := t.prices[m]; ok {
		return p, true
	}
	if base, ok := withoutDate(m); ok {
		p, ok := t.prices[base]
		return p, ok
	}
	return Price{}, false
}

// withoutDate strips a version date ("-20250929", "@20250929",
// "-2025-08-07") from a model name.
func withoutDate(m string) (string, bool) {
	if i := strings.LastIndexByte(m, '@'); i > 0 && digitsAndDashes(m[i+1:]) {
		return m[:i], true
	}
	// The date is the shortest run of digits and dashes at the end that
	// follows a dash and holds at least six digits: the version in
	// "claude-sonnet-4-5-20250929" stays.
	for i := len(m) - 1; i > 0; i-- {
		if m[i] == '-' && digitsAndDashes(m[i+1:]) && countDigits(m[i+1:]) >= 6 {
			return m[:i], true
		}
		if m[i] != '-' && (m[i] < '0' || m[i] > '9') {
			break
		}
	}
	return "", false
}

func digitsAndDashes(s string) bool {
	if s == "" || s[0] == '-' {
		return false
	}
	for _, c := range s {
		if c != '-' && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func countDigits(s string) int {
	n := 0
	for _, c := range s {
		if c >= '0' && c <= '9' {
			n++
		}
	}
	return n
}
