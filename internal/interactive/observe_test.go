package interactive

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/session"
)

// An agent that exits between the read of its exit record and the tmux
// call (its pane then gone) completed: it must not read as crashed.
func TestObserveExitDuringTheLook(t *testing.T) {
	dir := t.TempDir()
	// This tmux lists no pane, and the agent's exit record appears while
	// it runs, as when the agent, its wrapper and its pane end meanwhile.
	bin := filepath.Join(dir, "tmux")
	script := "#!/bin/sh\nprintf '{\"run_id\":\"r1\",\"exit_code\":0,\"at\":\"2026-01-01T00:00:00Z\"}' > \"$CSA_TEST_DONE\"\n"
	if err := os.WriteFile(bin, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CSA_TEST_DONE", filepath.Join(dir, DoneFile))
	now := time.Now()
	st := &session.State{Status: session.Running, CreatedAt: now.Add(-time.Minute), StartedAt: now.Add(-time.Minute),
		Interactive: &session.Interactive{Socket: filepath.Join(dir, "sock"), TmuxSession: "csa-x", RunID: "r1", Hooks: true}}
	ob := &Observer{TmuxBin: bin, Now: time.Now}
	o := ob.Observe(context.Background(), []Target{{Dir: dir, State: st, WrapperAlive: true}})[0]
	set := Settings{Grace: 5 * time.Second, Quiet: 3 * time.Second, StuckAfter: time.Minute}
	if v := Classify(o, set); v.State != Completed {
		t.Fatalf("got %s (%s), want completed", v.State, v.Reason)
	}
}

// A state read before the wrapper recorded the end, and an exit record read
// after: the end's reason (an OOM kill) comes from the state read again,
// never a bare "killed by SIGKILL".
func TestObserveEndRecordedDuringTheLook(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, DoneFile), []byte(`{"run_id":"r1","exit_code":137,"signal":"SIGKILL","at":"2026-01-01T00:00:00Z"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	st := &session.State{Status: session.Running, CreatedAt: now.Add(-time.Minute),
		Interactive: &session.Interactive{Socket: filepath.Join(dir, "sock"), TmuxSession: "csa-x", RunID: "r1", Hooks: true}}
	ended := *st
	ended.Status, ended.Reason = session.Failed, "killed by the kernel's OOM killer: memory limit 64 MB, peak 64 MB"
	ended.Failure = &session.Failure{Class: session.FailOOM, Message: ended.Reason}
	reloads := 0
	reload := func() (*session.State, error) { reloads++; c := ended; return &c, nil }
	ob := &Observer{Now: time.Now}
	o := ob.Observe(context.Background(), []Target{{Dir: dir, State: st, WrapperAlive: true, Reload: reload}})[0]
	v := Classify(o, Settings{Grace: 5 * time.Second, Quiet: 3 * time.Second, StuckAfter: time.Minute})
	if v.State != Crashed || !strings.Contains(v.Reason, "OOM killer: memory limit 64 MB") {
		t.Fatalf("got %s (%s), want crashed with the OOM reason", v.State, v.Reason)
	}
	if reloads != 1 || st.Failure == nil || st.Failure.Class != session.FailOOM {
		t.Errorf("reloads %d, caller's state %+v: want the ended state handed back", reloads, st)
	}
}
