package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/store"
)

// BenchmarkAgentParallelReads is issue 12's concurrency target: a turn of
// 8 reads of slow files (named pipes whose writer answers 200 ms after the
// reader opens them) takes about one read's time, not eight. It reports
// the tool phase of that turn (first start to last end, from the session's
// events) against a turn of one such read.
func BenchmarkAgentParallelReads(b *testing.B) {
	const slow = 200 * time.Millisecond
	script := "[[rule]]\ncontains = \"read eight\"\n  [[rule.step]]\n  calls = ["
	for i := 1; i <= 8; i++ {
		script += fmt.Sprintf("{ name = \"Read\", args = { file_path = \"p%d\" } },", i)
	}
	script += "]\n  [[rule.step]]\n  text = \"eight read\"\n[[rule]]\ncontains = \"read one\"\n  [[rule.step]]\n  call = { name = \"Read\", args = { file_path = \"p1\" } }\n  [[rule.step]]\n  text = \"one read\"\n"
	w := newCSAAgentWorld(b, "agent-parallel", script)
	proj := filepath.Join(w.dir, "proj")
	var ratios []float64
	var eights []time.Duration
	for i := 0; i < b.N; i++ {
		one := slowReads(b, w, proj, 1, slow, "read one")
		eight := slowReads(b, w, proj, 8, slow, "read eight")
		eights = append(eights, eight)
		ratios = append(ratios, float64(eight)/float64(one))
	}
	p50, p90 := report(b, "eight-reads", eights)
	worst := 0.0
	for _, r := range ratios {
		worst = max(worst, r)
	}
	b.ReportMetric(worst, "worst-ratio-8-to-1")
	record("agent-parallel", "csa-agent: turn of 8 slow reads (200 ms each)",
		fmt.Sprintf("p50 %.0f ms, p90 %.0f ms; worst 8-to-1 ratio %.2f", ms(p50), ms(p90), worst),
		"≈ one read", verdict(worst < 2))
}

// slowReads makes n named pipes that each answer slow after their reader
// opens them, runs the prompt, and returns the tool phase's duration.
func slowReads(b *testing.B, w *csaAgentWorld, proj string, n int, slow time.Duration, prompt string) time.Duration {
	var wg sync.WaitGroup
	for i := 1; i <= n; i++ {
		p := filepath.Join(proj, fmt.Sprintf("p%d", i))
		os.Remove(p)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, err := os.OpenFile(p, os.O_WRONLY, 0) // blocks until the reader opens
			if err != nil {
				return
			}
			time.Sleep(slow)
			f.WriteString("slow data\n")
			f.Close()
		}()
	}
	id := fmt.Sprintf("%08d-0000-4000-8000-%012d", n, time.Now().UnixNano()%1e12)
	w.run(b, "--session-id", id, prompt)
	wg.Wait()
	return toolPhase(b, filepath.Join(w.dir, "state", "csa-agent", "sessions", id+".jsonl"))
}

// toolPhase is the time from the first tool start to the last tool end
// recorded in a session file.
func toolPhase(b *testing.B, path string) time.Duration {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var first, last time.Time
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r store.Record
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.Event == nil {
			continue
		}
		switch r.Event.Kind {
		case "tool_started":
			if first.IsZero() {
				first = r.Event.Time
			}
		case "tool_finished":
			last = r.Event.Time
		}
	}
	if first.IsZero() || last.IsZero() {
		b.Fatalf("%s: no tool events", path)
	}
	return last.Sub(first)
}
