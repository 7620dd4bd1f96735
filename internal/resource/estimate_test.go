package resource_test

import (
	"slices"
	"testing"

	"github.com/csa-dev/csa/internal/resource"
)

func TestP95NearestRank(t *testing.T) {
	seq := func(from, to int64) []int64 {
		var s []int64
		for v := from; v <= to; v++ {
			s = append(s, v)
		}
		return s
	}
	tests := []struct {
		name    string
		history []int64
		want    int64
	}{
		{"empty", nil, 0},
		{"one value", []int64{1234}, 1234},
		{"two values: rank ceil(1.9) = 2", []int64{100, 200}, 200},
		{"ten values: rank ceil(9.5) = 10", seq(1, 10), 10},
		{"nineteen values: rank ceil(18.05) = 19", seq(1, 19), 19},
		{"twenty values: rank 19, the largest is the outlier", seq(1, 20), 19},
		{"twenty with one spike", []int64{1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000,
			1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1100, 9000}, 1100},
		{"twenty-one values: rank ceil(19.95) = 20", seq(1, 21), 20},
		{"forty values: rank 38", seq(1, 40), 38},
		{"hundred values: rank 95", seq(1, 100), 95},
		{"unsorted", []int64{2304, 1024, 4096, 2048, 3000}, 4096},
		{"duplicates", []int64{7, 7, 7}, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.history)
			if got := resource.P95(in); got != tt.want {
				t.Errorf("P95(%v) = %d, want %d", tt.history, got, tt.want)
			}
			if !slices.Equal(in, tt.history) {
				t.Errorf("P95 reordered its input: %v, was %v", in, tt.history)
			}
		})
	}
}

func TestP95DoesNotMutateUnsortedInput(t *testing.T) {
	h := []int64{30, 10, 20, 50, 40}
	resource.P95(h)
	if !slices.Equal(h, []int64{30, 10, 20, 50, 40}) {
		t.Errorf("history after P95 = %v", h)
	}
}

func TestEstimateFor(t *testing.T) {
	initial := map[string]int64{"codex": 4096, "opencode": 1536, "broken": 0}
	var twenty []int64
	for i := int64(1); i <= 20; i++ {
		twenty = append(twenty, 100*i)
	}
	tests := []struct {
		name    string
		tool    string
		history []int64
		initial map[string]int64
		want    resource.Estimate
	}{
		{"history wins over initial", "codex", []int64{2048, 2560, 2304}, initial, resource.Estimate{MB: 2560, Source: "p95 of 3 runs"}},
		{"one run", "codex", []int64{900}, initial, resource.Estimate{MB: 900, Source: "p95 of 1 run"}},
		{"twenty runs", "codex", twenty, initial, resource.Estimate{MB: 1900, Source: "p95 of 20 runs"}},
		{"no history: initial", "codex", nil, initial, resource.Estimate{MB: 4096, Source: "initial estimate"}},
		{"empty history: initial", "opencode", []int64{}, initial, resource.Estimate{MB: 1536, Source: "initial estimate"}},
		{"no initial: default", "gemini-cli", nil, initial, resource.Estimate{MB: 500, Source: "default"}},
		{"non-positive initial: default", "broken", nil, initial, resource.Estimate{MB: 500, Source: "default"}},
		{"nil map: default", "codex", nil, nil, resource.Estimate{MB: resource.DefaultEstimateMB, Source: resource.EstimateSourceDefault}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resource.EstimateFor(tt.tool, tt.history, tt.initial); got != tt.want {
				t.Errorf("EstimateFor(%s, %v) = %+v, want %+v", tt.tool, tt.history, got, tt.want)
			}
		})
	}
	if s := (resource.Estimate{MB: 4096, Source: "initial estimate"}).String(); s != "4096 MB, initial estimate" {
		t.Errorf("Estimate.String() = %q", s)
	}
}
