package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

const interactiveScript = `
[[rule]]
name = "first"
contains = "e2e interactive first"
  [[rule.step]]
  text = "First answer: apples."

[[rule]]
name = "second"
contains = "e2e interactive second"
  [[rule.step]]
  text = "Second answer: pears."

[[rule]]
name = "slow"
contains = "e2e interactive slow"
  [[rule.step]]
  text = "Slow answer: plums."
  delay_ms = 2500

[[rule]]
name = "other"
contains = ""
  [[rule.step]]
  text = "ok"
`

// TestRealInteractive drives the real interactive interfaces in tmux: spawn
// with a first prompt, wait for waiting_input after the first turn (the
// agent's own turn-complete hook), send a two-line follow-up (one
// submission, through a bracketed paste), wait again, read both
// answers with csa logs, kill, and check that no process and no tmux server
// is left behind.
func TestRealInteractive(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is needed:", err)
	}
	for _, tool := range []string{"claude-code", "codex"} {
		t.Run(tool, func(t *testing.T) {
			w := newWorld(t, interactiveScript)
			sp, _ := w.twoTurns(t, tool, "e2e interactive second\nsent as two lines")
			id := sp.SessionID
			if _, code, stderr := w.csa("kill", id); code != 0 {
				t.Fatalf("kill: exit %d: %s", code, stderr)
			}
			out, _, _ := w.csa("status", id)
			if f := strings.Fields(out); len(f) < 3 || f[2] != "killed" || !strings.Contains(out, "killed by csa kill") {
				t.Fatalf("after kill: %s", out)
			}
			w.noneLeft(id, sp.PanePID, sp.TmuxSocket)
		})
	}
}

// transcriptLogs is `csa logs --json` of an interactive session.
type transcriptLogs struct {
	Source string `json:"source"`
	Path   string `json:"path"`
	Text   string `json:"text"`
}

// twoTurns spawns tool interactively with a first prompt, sends second
// once the first turn is over and waits for the second to end; both turns
// must be judged by the agent's own hooks (not the fallback for silent
// ones) and both answers must be in csa logs, which it returns.
func (w *world) twoTurns(t *testing.T, tool, second string) (spawned, transcriptLogs) {
	t.Helper()
	sp := w.spawn(tool, "e2e interactive first")
	id := sp.SessionID
	t.Cleanup(func() { w.csa("kill", id) }) // whatever fails on the way
	w.waitState(id, "waiting_input")
	w.send(id, second)
	w.waitState(id, "waiting_input")
	var st struct {
		Sessions []struct {
			Signals struct {
				Turns        int    `json:"turns"`
				Hooks        bool   `json:"hooks"`
				HooksSilent  bool   `json:"hooks_silent"`
				ClassifiedBy string `json:"classified_by"`
			} `json:"signals"`
		} `json:"sessions"`
	}
	out, _, _ := w.csa("status", "--json", id)
	decode(t, out, &st)
	if s := st.Sessions[0]; !s.Signals.Hooks || s.Signals.Turns != 2 || s.Signals.HooksSilent || s.Signals.ClassifiedBy != "hooks" {
		t.Fatalf("after two turns: %s", out)
	}
	var lg transcriptLogs
	out, code, _ := w.csa("logs", "--json", id)
	decode(t, out, &lg)
	if code != 0 || lg.Source != "transcript" || !strings.Contains(lg.Text, "apples") || !strings.Contains(lg.Text, "pears") ||
		!strings.Contains(lg.Text, "> e2e interactive second") {
		tr, _ := os.ReadFile(lg.Path)
		t.Fatalf("logs: %s\ntranscript: %s", out, tail(tr, 6000))
	}
	return sp, lg
}

// waitState waits (bounded) for an interactive session's state.
func (w *world) waitState(id, state string) {
	w.t.Helper()
	// A bound, not an expected time: under load 15 on 2 cores an
	// interactive opencode took a minute to send its first request.
	out, code, stderr := w.csa("wait", id, "--until", state, "--timeout", "300s")
	if code != 0 {
		pane, _ := os.ReadFile(filepath.Join(w.sessionDir(id), "pane.log"))
		w.t.Fatalf("wait --until %s: exit %d: %s %s\nmodel server saw: %s\npane: %q", state, code, out, stderr, w.requests(), tail(pane, 3000))
	}
}

// waitPane waits (bounded) until the session's pane shows text.
func (w *world) waitPane(id, text string) {
	w.t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		out, _, _ := w.csa("logs", id)
		if strings.Contains(out, text) {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("%q never appeared in the pane:\n%s\nmodel server saw: %s", text, out, w.requests())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// noneLeft checks that no process of this test's csa state is alive and
// that the tmux server has gone with its last session.
func (w *world) noneLeft(id string, panePID int, socket string) {
	w.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := tagged(id)
		if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(panePID))); err == nil {
			left = append(left, fmt.Sprintf("pane wrapper %d", panePID))
		}
		err := exec.Command("tmux", "-S", socket, "list-sessions").Run()
		if len(left) == 0 && err != nil {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("left behind: processes %v, tmux server alive: %v", left, err == nil)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// spawned is the answer of `csa run -i --json`.
type spawned struct {
	SessionID  string `json:"session_id"`
	TmuxSocket string `json:"tmux_socket"`
	PanePID    int    `json:"pane_pid"`
}

// spawn starts an interactive session of tool with a first prompt.
func (w *world) spawn(tool, prompt string) spawned {
	w.t.Helper()
	out, code, stderr := w.csa("run", "-i", "--json", "--tool", tool, prompt)
	if code != 0 {
		w.t.Fatalf("spawn: exit %d: %s %s", code, out, stderr)
	}
	var sp spawned
	decode(w.t, out, &sp)
	return sp
}

// TestRealInteractiveBusySend sends a follow-up while the first turn is
// still running. Claude Code queues it and runs it as a turn of its own
// after the first; Codex steers the running turn with it. Either way a
// wait for waiting_input must not return before the follow-up is answered.
func TestRealInteractiveBusySend(t *testing.T) {
	for _, tool := range []string{"claude-code", "codex"} {
		t.Run(tool, func(t *testing.T) {
			w := newWorld(t, interactiveScript)
			sp := w.spawn(tool, "e2e interactive slow")
			id := sp.SessionID
			defer w.csa("kill", id)
			// The first prompt is on the screen, so its turn has begun
			// (the model's answer takes 2.5 s): send the follow-up into it.
			w.waitPane(id, "e2e interactive slow")
			w.send(id, "e2e interactive second")
			w.waitState(id, "waiting_input")
			var lg struct {
				Text string `json:"text"`
			}
			out, _, _ := w.csa("logs", "--json", id)
			decode(t, out, &lg)
			if !strings.Contains(lg.Text, "pears") {
				st, _, _ := w.csa("status", "--json", id)
				t.Fatalf("waiting_input before the follow-up was answered:\n%s\n%s", lg.Text, st)
			}
		})
	}
}

// send types text into the session and submits it.
func (w *world) send(id, text string) {
	w.t.Helper()
	if _, code, stderr := w.csa("send", id, "--text", text, "--enter"); code != 0 {
		w.t.Fatalf("send: exit %d: %s", code, stderr)
	}
}
