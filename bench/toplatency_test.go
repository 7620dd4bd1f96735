package bench

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkTopLatency measures how soon csa top shows a state change: an
// interactive session (the fake agent as claude-code, with turn hooks) is
// sent a line (csa send --enter), answers at once and so needs input
// again; the time is from csa send's return to the screen showing the
// session needing input with the answer as its last line, polled every
// 10 ms, each change at a random moment of the view's refresh period. b.N
// changes. Target: within a second.
func BenchmarkTopLatency(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Fatal("tmux is needed: ", err)
	}
	cfg := fmt.Sprintf("[tools.claude-code]\npath = %q\n[interactive]\ngrace = \"1s\"\nquiet = \"1s\"\n", agentBin)
	w := newWorld(b, "toplatency", cfg)
	csa := func(args ...string) string { return w.csa(b, args...) }
	id := csa("run", "-i", "--tool", "claude-code", "echo ready")
	b.Cleanup(func() { csa("kill", id) })
	csa("wait", "--until", "waiting_input", "--timeout", "1m", id)

	sock := filepath.Join(w.projDir, "..", "top.sock")
	args := append([]string{"-S", sock, "-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "20", "env"}, w.env...)
	args = append(args, "TERM=xterm-256color", "sh", "-c", `cd "$0" && exec "$1" top`, w.projDir, csaBin)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		b.Fatalf("tmux: %v\n%s", err, out)
	}
	defer exec.Command("tmux", "-S", sock, "kill-server").Run()
	showing := func(text string, limit time.Duration) bool {
		deadline := time.Now().Add(limit)
		for time.Now().Before(deadline) {
			out, _ := exec.Command("tmux", "-S", sock, "capture-pane", "-p").Output()
			for _, l := range strings.Split(string(out), "\n") {
				if strings.Contains(l, id) && strings.Contains(l, "! needs input") && strings.HasSuffix(strings.TrimSpace(l), text) {
					return true
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
		return false
	}
	if !showing("ready", time.Minute) {
		b.Fatal("csa top never showed the session")
	}
	var ds []time.Duration
	b.ResetTimer()
	for i := range b.N {
		// A change comes at any moment of the view's refresh period.
		time.Sleep(time.Duration(rand.Int64N(int64(time.Second))))
		mark := fmt.Sprintf("mark-%d", i)
		csa("send", id, "--text", "echo "+mark, "--enter")
		t0 := time.Now()
		if !showing(mark, time.Minute) {
			b.Fatalf("csa top never showed %s", mark)
		}
		ds = append(ds, time.Since(t0))
	}
	b.StopTimer()
	p50, p90 := report(b, "shown", ds)
	worst := slices.Max(ds)
	verdict := latencyVerdict(p90, worst, time.Second)
	record("toplatency", fmt.Sprintf("csa top shows a state change (csa send returned -> screen), n=%d", len(ds)),
		fmt.Sprintf("p50 %.0f ms, p90 %.0f ms, max %.0f ms", ms(p50), ms(p90), ms(worst)), "<= 1 s", verdict)
}
