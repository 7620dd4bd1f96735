package bench

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

// topWindow is how long csa top's CPU time is taken over.
const topWindow = 30 * time.Second

// BenchmarkTopCPU measures the CPU csa top (csa-ui, and the tmux calls it
// makes) uses while it shows 50 live sessions: 25 interactive ones in tmux
// (half with turn hooks, half without) waiting for input, and 25 headless
// ones running. It reads the program's CPU time (its own and its reaped
// children's, /proc/PID/stat) at the start and the end of a fixed window.
// Target: < 2% of one core.
func BenchmarkTopCPU(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Fatal("tmux is needed: ", err)
	}
	cfg := fmt.Sprintf("[tools.claude-code]\npath = %q\n[tools.gemini-cli]\npath = %q\n[interactive]\ngrace = \"1s\"\nquiet = \"1s\"\n", agentBin, agentBin)
	w := newWorld(b, "top", cfg)
	var ids, ix []string
	b.Cleanup(func() {
		c := exec.Command(csaBin, append([]string{"kill"}, ids...)...)
		c.Dir, c.Env = w.projDir, w.env
		c.Run()
	})
	csa := func(args ...string) string { return w.csa(b, args...) }
	for i := range nInteractive / 2 {
		tool := "claude-code"
		if i%2 == 1 {
			tool = "gemini-cli"
		}
		ix = append(ix, csa("run", "-i", "--tool", tool, fmt.Sprintf("echo session %d ready", i)))
		ids = append(ids, ix[len(ix)-1], csa("run", "-d", "--tool", "codex", fmt.Sprintf("echo headless %d; hang", i)))
	}
	csa(append([]string{"wait", "--until", "waiting_input", "--timeout", "2m"}, ix...)...)

	// csa top in a pane of a tmux server of its own (csa execs csa-ui:
	// the pane's process is the view).
	sock := filepath.Join(w.projDir, "..", "top.sock")
	args := append([]string{"-S", sock, "-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "60", "env"}, w.env...)
	args = append(args, "TERM=xterm-256color", "sh", "-c", `cd "$0" && exec "$1" top`, w.projDir, csaBin)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		b.Fatalf("tmux: %v\n%s", err, out)
	}
	defer exec.Command("tmux", "-S", sock, "kill-server").Run()
	deadline := time.Now().Add(time.Minute)
	want := fmt.Sprintf("csa top  %d sessions", nInteractive)
	for {
		out, _ := exec.Command("tmux", "-S", sock, "capture-pane", "-p").Output()
		if strings.Contains(string(out), want) && strings.Contains(string(out), fmt.Sprintf("! %d needs input", nInteractive/2)) {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("csa top never showed the %d sessions:\n%s", nInteractive, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	out, err := exec.Command("tmux", "-S", sock, "list-panes", "-F", "#{pane_pid}").Output()
	if err != nil {
		b.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); filepath.Base(exe) != "csa-ui" {
		b.Fatalf("the pane runs %s, not csa-ui", exe)
	}
	b.ResetTimer()
	start, t0 := cpuTicks(b, pid), time.Now()
	time.Sleep(topWindow)
	used, window := cpuTicks(b, pid)-start, time.Since(t0)
	b.StopTimer()
	pct := 100 * float64(used) / 100 / window.Seconds() // USER_HZ is 100 on Linux
	b.ReportMetric(pct, "%core")
	verdict := "met"
	if pct >= 2 {
		verdict = "NOT MET"
	}
	record("top", fmt.Sprintf("csa top CPU, %d live sessions (%d interactive, %d headless), %s window", nInteractive, nInteractive/2, nInteractive/2, topWindow),
		fmt.Sprintf("%.2f%% of one core", pct), "< 2%", verdict)
}

// cpuTicks is a process's CPU time and its reaped children's, in clock
// ticks (utime, stime, cutime, cstime of /proc/PID/stat).
func cpuTicks(b *testing.B, pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	var sum int64
	for _, i := range []int{11, 12, 13, 14} { // fields 14-17, after pid and comm
		n, _ := strconv.ParseInt(f[i], 10, 64)
		sum += n
	}
	return sum
}
