package resource

import (
	"fmt"
	"slices"
)

// DefaultEstimateMB is a tool's memory estimate when it has neither a
// history nor a configured initial estimate.
const DefaultEstimateMB = 500

// Sources of an Estimate.
const (
	EstimateSourceInitial = "initial estimate"
	EstimateSourceDefault = "default"
)

// P95 is the 95th percentile of history by the nearest-rank method: with
// the n values sorted ascending, it is the value at 1-based rank
// ceil(0.95 * n). So one value is its own P95, 20 values give the 19th
// smallest (the largest is treated as the one outlier in twenty), and 100
// values give the 95th. An empty history has no P95 and gives 0. history is
// not modified.
func P95(history []int64) int64 {
	n := len(history)
	if n == 0 {
		return 0
	}
	sorted := slices.Clone(history)
	slices.Sort(sorted)
	rank := (95*n + 99) / 100 // ceil(0.95 n) in integers
	return sorted[rank-1]
}

// Estimate is how much memory a run of a tool is expected to need, and
// where that figure came from: "p95 of N runs", "initial estimate" or
// "default".
type Estimate struct {
	MB     int64
	Source string
}

func (e Estimate) String() string { return fmt.Sprintf("%d MB, %s", e.MB, e.Source) }

// EstimateFor picks tool's estimate: the P95 of its history if it has one,
// else its configured initial estimate (if positive), else
// DefaultEstimateMB.
func EstimateFor(tool string, history []int64, initial map[string]int64) Estimate {
	if n := len(history); n > 0 {
		src := fmt.Sprintf("p95 of %d runs", n)
		if n == 1 {
			src = "p95 of 1 run"
		}
		return Estimate{MB: P95(history), Source: src}
	}
	if mb := initial[tool]; mb > 0 {
		return Estimate{MB: mb, Source: EstimateSourceInitial}
	}
	return Estimate{MB: DefaultEstimateMB, Source: EstimateSourceDefault}
}
