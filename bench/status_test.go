package bench

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// nInteractive is the number of live interactive sessions of the status
// target.
const nInteractive = 50

// BenchmarkStatusAll measures `csa status --all --json` over 50 live
// interactive sessions in tmux (half with turn hooks, half without), each
// waiting for input: one process-table read and one tmux call for all.
// Target: <= 150 ms.
func BenchmarkStatusAll(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Fatal("tmux is needed: ", err)
	}
	cfg := fmt.Sprintf("[tools.claude-code]\npath = %q\n[tools.gemini-cli]\npath = %q\n[interactive]\ngrace = \"1s\"\nquiet = \"1s\"\n", agentBin, agentBin)
	w := newWorld(b, "status", cfg)
	ids := make([]string, 0, nInteractive)
	b.Cleanup(func() {
		c := exec.Command(csaBin, append([]string{"kill"}, ids...)...)
		c.Dir, c.Env = w.projDir, w.env
		c.Run()
	})
	for i := range nInteractive {
		tool := "claude-code"
		if i%2 == 1 {
			tool = "gemini-cli"
		}
		c := exec.Command(csaBin, "run", "-i", "--tool", tool, fmt.Sprintf("echo session %d ready", i))
		c.Dir, c.Env = w.projDir, w.env
		out, err := c.Output()
		if err != nil {
			b.Fatalf("csa run -i: %v", err)
		}
		ids = append(ids, strings.TrimSpace(string(out)))
	}
	waitAllWaiting(b, w)
	ds := processTimes(b, w, "status", "--all", "--json")
	p50, p90 := report(b, "wall", ds)
	record("status", fmt.Sprintf("csa status --all --json, %d live interactive sessions", nInteractive),
		fmt.Sprintf("p50 %.1f ms, p90 %.1f ms", ms(p50), ms(p90)), "<= 150 ms", within(p50, p90, 150*time.Millisecond))
}

// waitAllWaiting waits until every session waits for input, so the timed
// calls classify live, settled sessions (a fast wrong answer must not pass).
func waitAllWaiting(b *testing.B, w *world) {
	deadline := time.Now().Add(60 * time.Second)
	for {
		c := exec.Command(csaBin, "status", "--all", "--json")
		c.Dir, c.Env = w.projDir, w.env
		out, err := c.Output()
		if err != nil {
			b.Fatalf("csa status: %v", err)
		}
		var ans struct {
			Sessions []struct {
				State string `json:"state"`
			} `json:"sessions"`
		}
		if err := json.Unmarshal(out, &ans); err != nil {
			b.Fatal(err)
		}
		waiting := 0
		for _, s := range ans.Sessions {
			if s.State == "waiting_input" {
				waiting++
			}
		}
		if len(ans.Sessions) == nInteractive && waiting == nInteractive {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d sessions wait for input after 60s:\n%s", waiting, len(ans.Sessions), out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
