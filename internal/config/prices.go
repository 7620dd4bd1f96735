package config

import (
	"fmt"

	"github.com/csa-dev/csa/internal/cost"
)

// PriceConfig is a model's price in [prices."MODEL"], in USD per million
// tokens. Input and output are required; a cache price left out costs
// what input does.
type PriceConfig struct {
	Input      *float64 `toml:"input"`
	Output     *float64 `toml:"output"`
	CacheRead  *float64 `toml:"cache_read"`
	CacheWrite *float64 `toml:"cache_write"`
}

// validatePrices checks every [prices."MODEL"] table.
func (c *Config) validatePrices() []problem {
	var ps []problem
	for model, p := range c.Prices {
		for key, v := range map[string]*float64{"input": p.Input, "output": p.Output, "cache_read": p.CacheRead, "cache_write": p.CacheWrite} {
			switch {
			case v == nil && (key == "input" || key == "output"):
				ps = append(ps, problem{KindValue, []string{"prices", model}, "needs input and output (USD per million tokens)"})
			case v != nil && (*v < 0 || *v != *v):
				ps = append(ps, problem{KindValue, []string{"prices", model, key}, fmt.Sprintf("%v must be a price of zero or more (USD per million tokens)", *v)})
			}
		}
	}
	return dedupe(ps)
}

// dedupe drops repeated problems (a table missing both input and output
// is one problem).
func dedupe(ps []problem) []problem {
	var out []problem
	seen := map[string]bool{}
	for _, p := range ps {
		k := joinKey(p.key) + "\x00" + p.detail
		if !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	return out
}

// PriceTable is the built-in price table with the configured prices over
// it.
func (c *Config) PriceTable() cost.Table { return cost.Default().With(c.PriceOverrides()) }

// PriceOverrides are the configured prices, cache prices filled in.
func (c *Config) PriceOverrides() map[string]cost.Price {
	over := make(map[string]cost.Price, len(c.Prices))
	for model, p := range c.Prices {
		if p.Input == nil || p.Output == nil {
			continue // refused at load
		}
		price := cost.Price{Input: *p.Input, Output: *p.Output, CacheRead: *p.Input, CacheWrite: *p.Input}
		if p.CacheRead != nil {
			price.CacheRead = *p.CacheRead
		}
		if p.CacheWrite != nil {
			price.CacheWrite = *p.CacheWrite
		}
		over[model] = price
	}
	return over
}
