package interactive

import (
	"context"
	"os"
	"path/filepath"
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
