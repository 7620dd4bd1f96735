package session

import (
	"reflect"
	"testing"
	"time"
)

func TestSummaryCacheRoundTrip(t *testing.T) {
	code := -3
	now := time.Date(2026, 11, 22, 3, 4, 5, 6, time.UTC)
	c := summaryCache{
		"01M80M4HCH8JGS3NVNKC0K0PM3": {Ino: 42, Size: 700, ModNano: now.UnixNano(), Summary: Summary{
			ID: "01M80M4HCH8JGS3NVNKC0K0PM3", Tool: "codex", Model: "m", Status: Failed, ProjectRoot: "/p q",
			Depth: 2, ParentID: "01M80M4HCH8JGS3NVNKC0K0PM2", CreatedAt: now, StartedAt: now.Add(time.Second),
			EndedAt: now.Add(time.Minute), ExitCode: &code, Reason: "exited \x00 with ü"}},
		"01M80M4HCH8JGS3NVNKC0K0PM4": {Summary: Summary{ID: "01M80M4HCH8JGS3NVNKC0K0PM4", Status: Completed}},
		"01M80M4HCH8JGS3NVNKC0K0PM5": {Summary: Summary{ID: "01M80M4HCH8JGS3NVNKC0K0PM5", Status: Killed,
			Change: &Change{Branch: "csa/01M80M4HCH", Recorded: true, Files: 2, Insertions: 30, Deletions: 1}}},
		"01M80M4HCH8JGS3NVNKC0K0PM6": {Summary: Summary{ID: "01M80M4HCH8JGS3NVNKC0K0PM6", Status: Crashed,
			Change: &Change{Branch: "csa/x"}}},
		"01M80M4HCH8JGS3NVNKC0K0PM7": {Summary: Summary{ID: "01M80M4HCH8JGS3NVNKC0K0PM7", Status: Completed,
			Usage: &Usage{InputTokens: 1 << 40, OutputTokens: 7, CachedTokens: 300, CacheWriteTokens: 9}, ProviderModel: "claude-x"}},
	}
	got, ok := decodeCache(encodeCache(c))
	if !ok || !reflect.DeepEqual(got, c) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, c)
	}
	b := encodeCache(c)
	for _, bad := range [][]byte{nil, {9}, b[:len(b)-3]} {
		if _, ok := decodeCache(bad); ok {
			t.Errorf("decodeCache(%d bytes) accepted a broken cache", len(bad))
		}
	}
}

// TestSummariesSeeChanges: a state saved after the cache was written is
// read again, never served stale.
func TestSummariesSeeChanges(t *testing.T) {
	s, err := Open(t.TempDir() + "/sessions")
	if err != nil {
		t.Fatal(err)
	}
	st := &State{ID: NewID(time.Now()), Tool: "codex", Status: Completed, CreatedAt: time.Now().UTC()}
	if err := s.MakeDir(st.ID); err != nil {
		t.Fatal(err)
	}
	s.Save(st)
	list := func() Status {
		ents, err := s.Summaries()
		if err != nil || len(ents) != 1 || ents[0].Summary == nil {
			t.Fatalf("summaries: %v %+v", err, ents)
		}
		return ents[0].Summary.Status
	}
	if list() != Completed || list() != Completed { // the second comes from the cache
		t.Fatal("want completed")
	}
	st.Status = Failed
	s.Save(st)
	if got := list(); got != Failed {
		t.Fatalf("after a save: %s, want failed", got)
	}
}
