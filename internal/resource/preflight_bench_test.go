package resource_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/csa-dev/csa/internal/resource"
)

// BenchmarkPreflightAndSlot is the admission work of one csa run: read
// /proc/meminfo, read the tool's history, estimate, check, take a slot and
// give it back. The target is under 2 ms per run.
func BenchmarkPreflightAndSlot(b *testing.B) {
	dir := b.TempDir()
	stats := resource.OpenStats(filepath.Join(dir, "usage_stats.toml"))
	for i := range resource.HistoryWindow {
		for _, tool := range []string{"codex", "claude-code", "opencode", "gemini-cli"} {
			if _, err := stats.Record(tool, int64(1000+50*i)); err != nil {
				b.Fatal(err)
			}
		}
	}
	slots := resource.NewSlots(filepath.Join(dir, "slots"))
	initial := map[string]int64{"codex": 4096}
	b.ReportAllocs()
	for b.Loop() {
		mi, err := resource.ReadMemInfo("/proc/meminfo")
		if err != nil {
			b.Fatal(err)
		}
		h, _, err := stats.History("codex")
		if err != nil {
			b.Fatal(err)
		}
		est := resource.EstimateFor("codex", h, initial)
		var pe *resource.PreflightError
		if err := resource.Preflight("codex", 512, est, mi); err != nil && !errors.As(err, &pe) {
			b.Fatal(err)
		}
		sl, err := slots.TryAcquire("codex", 3)
		if err != nil {
			b.Fatal(err)
		}
		if err := sl.Release(); err != nil {
			b.Fatal(err)
		}
	}
}
