package appserver

import (
	"encoding/json"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/thread"
)

func TestDecisions(t *testing.T) {
	cases := []struct {
		raw    string
		want   thread.Decision
		cancel bool
	}{
		{`"accept"`, thread.Accept, false},
		{`"acceptForSession"`, thread.AcceptForSession, false},
		{`"decline"`, thread.Decline, false},
		{`"cancel"`, thread.Decline, true},
		{`{"acceptWithExecpolicyAmendment":{"execpolicy_amendment":["git"]}}`, thread.AcceptForSession, false},
		{`{"applyNetworkPolicyAmendment":{}}`, thread.Accept, false},
		{`"yes please"`, thread.Decline, false},
		{`null`, thread.Decline, false},
	}
	for _, c := range cases {
		d, cancel := decision(json.RawMessage(c.raw))
		if d != c.want || cancel != c.cancel {
			t.Errorf("decision %s = %s, %v; want %s, %v", c.raw, d, cancel, c.want, c.cancel)
		}
	}
}

// An Edit is a fileChange with its old and new lines; a call the client
// declined ends "declined"; a call left open when the turn ends abruptly
// is completed as failed.
func TestFileChangeItems(t *testing.T) {
	var got []ItemCompletedNotification
	m := newMapper("th", "tu", "/w", func(method string, p any) {
		if n, ok := p.(ItemCompletedNotification); ok {
			got = append(got, n)
		}
	}, func(k string) string { return k })
	m.Emit(event.Event{Kind: event.ToolQueued, ToolID: "e1", ToolName: "Edit",
		Input: json.RawMessage(`{"file_path":"f.go","old_string":"a\nb","new_string":"c"}`)})
	m.Declined("e1")
	m.Emit(event.Event{Kind: event.ToolFinished, ToolID: "e1", ToolName: "Edit", Text: "permission denied", IsError: true})
	m.Emit(event.Event{Kind: event.ToolQueued, ToolID: "r1", ToolName: "Read", Input: json.RawMessage(`{"file_path":"x"}`)})
	m.Flush()
	if len(got) != 2 {
		t.Fatalf("completed %v", got)
	}
	fc := got[0].Item.(FileChangeItem)
	if fc.Status != "declined" || fc.Changes[0].Path != "/w/f.go" || fc.Changes[0].Kind.Type != "update" || fc.Changes[0].Diff != "-a\n-b\n+c\n" {
		t.Errorf("edit item %+v", fc)
	}
	dt := got[1].Item.(DynamicToolCallItem)
	if dt.Tool != "Read" || dt.Status != "failed" || *dt.Success || got[1].ThreadID != "th" || got[1].TurnID != "tu" {
		t.Errorf("open call at the end %+v", got[1])
	}
}
