package cluster

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/session"
)

// TestListedFields: a record decoded as a Listed gives the summary of
// its whole decoding, so listedJSON's tags are Record's.
func TestListedFields(t *testing.T) {
	at := time.Date(2026, 11, 22, 3, 4, 5, 123456789, time.UTC)
	code := 3
	for _, r := range []Record{
		{State: session.State{ID: "01M80M4HCH8JGS3NVNKC0K0PM3", Tool: "codex", Status: session.Pending, ProjectRoot: "/p", CreatedAt: at},
			Remote: Remote{QueuedAt: at}},
		{State: session.State{ID: "01M80M4HCH8JGS3NVNKC0K0PM4", Tool: "claude-code", Model: "m<1>", Status: session.Failed,
			ProjectRoot: "/p q/\"ü\"", Cwd: "/p", Depth: 2, ParentID: "01M80M4HCH8JGS3NVNKC0K0PM3", ParentTool: "codex",
			CreatedAt: at, StartedAt: at.Add(time.Second), EndedAt: at.Add(time.Minute), ExitCode: &code,
			Reason: "exited\twith status 3", Failure: &session.Failure{}, Result: "{\"reason\":\"no\"}",
			Interactive: &session.Interactive{}},
			Remote: Remote{Labels: map[string]string{"worker": "x"}, Worker: "w1", Host: "h", LocalID: "01M80M4HCH8JGS3NVNKC0K0PM9",
				QueuedAt: at, TakenAt: at, Diff: &ResultDiff{}}},
	} {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var l Listed
		if err := decodeListed(b, &l); err != nil {
			t.Fatal(err)
		}
		want := Listed{Summary: r.Summarize(), Worker: r.Remote.Worker, LocalID: r.Remote.LocalID}
		if !reflect.DeepEqual(l, want) {
			t.Errorf("got  %+v\nwant %+v", l, want)
		}
	}
}
