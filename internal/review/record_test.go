package review

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
)

func TestSessionLifecycle(t *testing.T) {
	store, err := session.Open(filepath.Join(t.TempDir(), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	parent := &runner.Parent{SessionID: "01J00000000000000000000000", Tool: "claude-code", Depth: 1}
	s, err := Begin(store, Meta{Kind: KindReview, Parent: parent, ProjectRoot: "/p", Cwd: "/p/sub", Program: "/bin/csa",
		Args: []string{"review", "--diff"}, Prompt: "PROMPT"}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Load(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != session.Running || st.Tool != "review" || st.Depth != 2 || st.ParentID != parent.SessionID || st.ParentTool != "claude-code" {
		t.Fatalf("state %+v", st)
	}
	if !store.SupervisorAlive(s.ID()) {
		t.Fatal("the session's supervisor lock is not held")
	}
	if b, _ := os.ReadFile(store.Path(s.ID(), session.PromptFile)); string(b) != "PROMPT" {
		t.Fatalf("prompt.txt %q", b)
	}

	env := runner.ChildEnv([]string{"PATH=/bin", "CSA_SESSION_ID=OLD", "CSA_DEPTH=1", "CSA_TOOL=claude-code", "HOME=/h"}, s.State, s.Dir(), nil)
	for _, want := range []string{"PATH=/bin", "HOME=/h", "CSA_SESSION_ID=" + s.ID(), "CSA_DEPTH=2", "CSA_TOOL=review",
		"CSA_PROJECT_ROOT=/p", "CSA_PARENT_SESSION=" + parent.SessionID, "CSA_PARENT_TOOL=claude-code", "CSA_SESSION_DIR=" + s.Dir()} {
		if !slices.Contains(env, want) {
			t.Errorf("child env lacks %s: %v", want, env)
		}
	}
	if slices.Contains(env, "CSA_SESSION_ID=OLD") || slices.Contains(env, "CSA_DEPTH=1") {
		t.Errorf("the caller's genealogy leaked: %v", env)
	}

	if s.KillRequested() {
		t.Fatal("kill requested out of nowhere")
	}
	os.WriteFile(store.Path(s.ID(), session.KillRequest), []byte("x"), 0o600)
	if !s.KillRequested() {
		t.Fatal("kill request not seen")
	}
	s.Say("hello")
	if err := s.SaveJSON("review.json", map[string]string{"verdict": "fail"}); err != nil {
		t.Fatal(err)
	}
	end, err := s.End(Ending{Status: session.Failed, ExitCode: 1, Result: "fail (x)", Failure: &session.Failure{Class: "review_failed", Message: "fail (x)"}})
	if err != nil {
		t.Fatal(err)
	}
	if end.Status != session.Failed || *end.ExitCode != 1 || end.Result != "fail (x)" || end.EndedAt.IsZero() {
		t.Fatalf("end %+v", end)
	}
	if store.SupervisorAlive(s.ID()) {
		t.Fatal("lock still held after End")
	}
	var rep map[string]string
	b, _ := os.ReadFile(store.Path(s.ID(), "review.json"))
	if json.Unmarshal(b, &rep) != nil || rep["verdict"] != "fail" {
		t.Fatalf("review.json %s", b)
	}
	ev, _ := os.ReadFile(store.Path(s.ID(), session.EventsFile))
	for _, want := range []string{`"type":"session.created"`, `"type":"text","data":{"text":"hello"}`, `"type":"session.ended"`} {
		if !strings.Contains(string(ev), want) {
			t.Errorf("events lack %s:\n%s", want, ev)
		}
	}
}

// A session `csa kill` already recorded as ended keeps that record.
func TestSessionEndKeepsKill(t *testing.T) {
	store, _ := session.Open(filepath.Join(t.TempDir(), "sessions"))
	s, err := Begin(store, Meta{Kind: KindDebate, ProjectRoot: "/p", Cwd: "/p"}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if s.State.Depth != 0 || s.State.ParentID != "" {
		t.Fatalf("root session %+v", s.State)
	}
	st, _ := store.Load(s.ID())
	st.Status, st.Reason = session.Killed, "killed by csa kill"
	store.Save(st)
	end, err := s.End(Ending{Status: session.Completed, ExitCode: 0})
	if err != nil || end.Status != session.Killed {
		t.Fatalf("%+v %v", end, err)
	}
}
