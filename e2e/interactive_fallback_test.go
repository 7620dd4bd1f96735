package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestRealInteractiveFallback: gemini-cli and opencode have no turn hooks
// csa can install; their interactive interfaces are classified by the CPU
// of their process trees and pane output. Spawn with a prompt, wait for
// waiting_input, find the answer in the pane, send a follow-up, wait, find
// its answer, kill, nothing left.
func TestRealInteractiveFallback(t *testing.T) {
	for _, tool := range []string{"gemini-cli", "opencode"} {
		t.Run(tool, func(t *testing.T) {
			w := newWorld(t, interactiveScript)
			sp := w.spawn(tool, "e2e interactive first")
			id := sp.SessionID
			defer w.csa("kill", id)
			t0 := time.Now()
			w.waitState(id, "waiting_input")
			t.Logf("waiting_input after %s", time.Since(t0).Round(time.Millisecond))
			out, _, _ := w.csa("logs", id)
			if !strings.Contains(out, "apples") {
				t.Fatalf("the answer is not in the pane:\n%s", out)
			}
			w.send(id, "e2e interactive second")
			// Without hooks the classifier judges by CPU and output: on a
			// loaded machine an agent starved while its request is out can
			// look quiet for a moment. The answer is what is waited for,
			// then the state it leaves the agent in.
			w.waitPane(id, "pears")
			w.waitState(id, "waiting_input")
			t0 = time.Now()
			if _, code, stderr := w.csa("kill", id); code != 0 {
				t.Fatalf("kill: exit %d: %s", code, stderr)
			}
			t.Logf("killed in %s", time.Since(t0).Round(time.Millisecond))
			w.noneLeft(id, sp.PanePID, sp.TmuxSocket)
		})
	}
}
