package ps

import (
	"encoding/json"
	"testing"
	"time"
)

// TestRowJSON holds the hand-written encoder to encoding/json's output.
func TestRowJSON(t *testing.T) {
	now := time.Date(2026, 11, 22, 3, 4, 5, 123456789, time.UTC)
	local := now.In(time.FixedZone("X", 3600))
	code := 7
	rows := []*Row{
		{ID: "01M80M4HCH8JGS3NVNKC0K0PM3", Tool: "codex", State: "running", ProjectRoot: "/p", Interactive: true},
		{ID: "01M80M4HCH8JGS3NVNKC0K0PM4", Tool: "claude-code", Model: "m<1>", State: "failed", Depth: 2,
			ParentID: "01M80M4HCH8JGS3NVNKC0K0PM3", ProjectRoot: "/p q/\"ü\"", StartedAt: &now, EndedAt: &local,
			DurationMS: 1234, ExitCode: &code, Reason: "exited\twith \x00 status 7: \u2028 & more"},
		{ID: "01M80M4HCH8JGS3NVNKC0K0PM5", Tool: "codex", State: "completed", ProjectRoot: "/p", Worker: "host-1"},
	}
	for _, r := range rows {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.appendJSON(nil); string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}
