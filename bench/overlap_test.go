package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkOverlapSeen measures the overlap radar: two live worktree runs
// (the fake agent as codex, csa run -d -w) of one repository; the first
// edits f.txt at once, the second when told (a file appears, which it
// polls every 10 ms); the time is from telling it to csa ps --json
// flagging both runs over f.txt, polled every 10 ms. b.N pairs. Target:
// within a second of the second edit.
func BenchmarkOverlapSeen(b *testing.B) {
	w := newWorld(b, "overlap", "")
	git := func(args ...string) {
		c := exec.Command("git", args...)
		c.Dir = w.projDir
		c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@b", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@b")
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.RemoveAll(filepath.Join(w.projDir, ".git"))
	git("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(w.projDir, "f.txt"), []byte("base\n"), 0o644)
	git("add", ".")
	git("commit", "-q", "-m", "base")
	csa := func(args ...string) string { return w.csa(b, args...) }
	type row struct {
		ID       string `json:"id"`
		State    string `json:"state"`
		Overlaps []struct {
			With  string   `json:"with"`
			Paths []string `json:"paths"`
		} `json:"overlaps"`
	}
	rows := func() map[string]row {
		var rs []row
		json.Unmarshal([]byte(csa("ps", "--json")), &rs)
		m := map[string]row{}
		for _, r := range rs {
			m[r.ID] = r
		}
		return m
	}
	flagged := func(r row, with string) bool {
		return len(r.Overlaps) == 1 && r.Overlaps[0].With == with && slices.Equal(r.Overlaps[0].Paths, []string{"f.txt"})
	}
	var ds []time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		dir := filepath.Join(w.projDir, "..", fmt.Sprintf("pair-%d", i))
		os.MkdirAll(dir, 0o700)
		tell, end := filepath.Join(dir, "tell"), filepath.Join(dir, "end")
		a := csa("run", "-d", "-w", "--tool", "codex", "write f.txt A; waitfile "+end+"; echo done")
		c := csa("run", "-d", "-w", "--tool", "codex", "waitfile "+tell+"; write f.txt B; waitfile "+end+"; echo done")
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			m := rows()
			if m[a].State == "running" && m[c].State == "running" {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("the runs never both ran: %+v", m)
			}
		}
		b.StartTimer()
		os.WriteFile(tell, nil, 0o644)
		t0 := time.Now()
		for deadline := t0.Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			m := rows()
			if flagged(m[a], c) && flagged(m[c], a) {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("never flagged: %+v", m)
			}
		}
		ds = append(ds, time.Since(t0))
		b.StopTimer()
		os.WriteFile(end, nil, 0o644)
		csa("wait", a, c)
		b.StartTimer()
	}
	b.StopTimer()
	p50, p90 := report(b, "flagged", ds)
	worst := slices.Max(ds)
	verdict := latencyVerdict(p90, worst, time.Second)
	record("overlapseen", fmt.Sprintf("overlap radar: second edit -> csa ps flags both runs, n=%d", len(ds)),
		fmt.Sprintf("p50 %.0f ms, p90 %.0f ms, max %.0f ms", ms(p50), ms(p90), ms(worst)), "<= 1 s", verdict)
}
