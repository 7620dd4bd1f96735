package psrow

import (
	"encoding/json"
	"github.com/csa-dev/csa/internal/radar"
	"testing"
	"time"
)

// TestRowJSON holds the hand-written encoder to encoding/json's output.
func TestRowJSON(t *testing.T) {
	now := time.Date(2026, 11, 22, 3, 4, 5, 123456789, time.UTC)
	local := now.In(time.FixedZone("X", 3600))
	code := 7
	f := func(v float64) *float64 { return &v }
	rows := []*Row{
		{ID: "01M80M4HCH8JGS3NVNKC0K0PM3", Tool: "codex", State: "running", ProjectRoot: "/p", Interactive: true},
		{ID: "01M80M4HCH8JGS3NVNKC0K0PM4", Tool: "claude-code", Model: "m<1>", State: "failed", Depth: 2,
			ParentID: "01M80M4HCH8JGS3NVNKC0K0PM3", ProjectRoot: "/p q/\"ü\"", StartedAt: &now, EndedAt: &local,
			DurationMS: 1234, ExitCode: &code, Reason: "exited\twith \x00 status 7: \u2028 & more"},
		{ID: "01M80M4HCH8JGS3NVNKC0K0PM5", Tool: "codex", State: "completed", ProjectRoot: "/p", Worker: "host-1"},
		{ID: "01M80M4HCH8JGS3NVNKC0K0PM6", Tool: "codex", State: "completed", Branch: "csa/01M80M4HCH", Recorded: true, Files: 2, Insertions: 3},
		{ID: "01M80M4HCH8JGS3NVNKC0K0PM7", Tool: "codex", State: "running", Branch: "csa/ü\"x"},
		{ID: "01M80M4HCH8JGS3NVNKC0K0PM8", Tool: "codex", State: "running", Branch: "csa/01M80M4HCH",
			Overlaps: []radar.Overlap{{With: "01M80M4HCH8JGS3NVNKC0K0PM7", Paths: []string{"f.txt", "a <b>/\"ü\".go"}}}},
		{ID: "01M80M4HCH8JGS3NVNKC0K0PM9", Tool: "codex", State: "completed", CostUSD: f(0.000141), TreeCostUSD: f(12.5), TreeUnpriced: 2},
		{ID: "01M80M4HCH8JGS3NVNKC0K0PMA", Tool: "codex", State: "completed", CostUSD: f(0), TreeCostUSD: f(3.2e-9)},
		{ID: "01M80M4HCH8JGS3NVNKC0K0PMC", Tool: "codex", State: "completed", PriceUnknown: true, TreeUnpriced: 1},
		{ID: "01M80M4HCH8JGS3NVNKC0K0PMB", Tool: "codex", State: "completed", CostUSD: f(1.0000000001e22)},
	}
	for _, r := range rows {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.AppendJSON(nil); string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

// TestLine: a row's line gives back its listed JSON and its alias.
func TestLine(t *testing.T) {
	a := &Row{ID: "01M80M4HCH8JGS3NVNKC0K0PM3", Tool: "codex", State: "running", Reason: "a\tb\nc", Worker: "w1",
		Alias: "01M80M4HCH8JGS3NVNKC0K0PM9"}
	b := &Row{ID: "01M80M4HCH8JGS3NVNKC0K0PM4", Tool: "codex", State: "queued"}
	data := b.AppendLine(a.AppendLine(nil))
	for _, r := range []*Row{a, b} {
		row, alias, rest, err := SplitLine(data)
		if err != nil || string(row) != string(r.AppendJSON(nil)) || alias != r.Alias {
			t.Fatalf("%s %q %v; want %s %q", row, alias, err, r.AppendJSON(nil), r.Alias)
		}
		data = rest
	}
	if len(data) != 0 {
		t.Errorf("left over: %q", data)
	}
	for _, bad := range []string{"[1]\n", "{\"id\":1}", "\n"} {
		if _, _, _, err := SplitLine([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
