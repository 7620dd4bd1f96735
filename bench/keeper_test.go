package bench

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkKeeperSweep is issue 11's item 3: nothing of a run may outlive
// its SIGKILLed supervisor by more than a second, with no other csa command
// run. Each iteration starts a foreground `csa run` whose agent (the fake)
// starts a child that leaves its group and ignores SIGHUP and SIGTERM,
// SIGKILLs the supervisor, and times until that child is gone. "daemon":
// the user's keeper daemon sweeps; "own": with no usable socket directory
// each run has a keeper process of its own, which sweeps.
func BenchmarkKeeperSweep(b *testing.B) {
	b.Run("daemon", func(b *testing.B) {
		w := newWorld(b, "keeper-daemon", "")
		// The first run starts the daemon; the timed ones use it.
		w.command(b, devNull(b), csaBin, "run", "--tool", "codex", "echo hi").timed(b)
		waitSocket(b, filepath.Join(w.runtimeDir(), "csa", "keeper-1.sock"))
		sweeps(b, w, "keeper-sweep", "supervisor SIGKILLed: its agent's setsid child gone after (keeper daemon)")
	})
	b.Run("own", func(b *testing.B) {
		w := newWorld(b, "keeper-own", "")
		// A socket directory that is not private is refused: no daemon.
		if err := os.MkdirAll(filepath.Join(w.runtimeDir(), "csa"), 0o755); err != nil {
			b.Fatal(err)
		}
		os.Chmod(filepath.Join(w.runtimeDir(), "csa"), 0o755)
		sweeps(b, w, "keeper-sweep-own", "  the same with a keeper process per run")
	})
}

func sweeps(b *testing.B, w *world, key, what string) {
	var took []time.Duration
	b.ResetTimer()
	for i := range b.N {
		pidfile := filepath.Join(w.stateDir, fmt.Sprintf("orphan-%d.pid", i))
		c := exec.Command(csaBin, "run", "--tool", "codex", "orphan "+pidfile+"; sleep 60s")
		c.Dir, c.Env = w.projDir, w.env
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		orphan := waitPid(b, pidfile)
		killed := time.Now()
		c.Process.Signal(syscall.SIGKILL)
		c.Wait()
		for alive(orphan) {
			if time.Since(killed) > 30*time.Second {
				b.Fatalf("run %d: process %d outlived its supervisor", i, orphan)
			}
			time.Sleep(time.Millisecond)
		}
		took = append(took, time.Since(killed))
	}
	b.StopTimer()
	p50, p90 := report(b, "sweep", took)
	record(key, what, fmt.Sprintf("p50 %.0f ms, p90 %.0f ms, max %.0f ms", ms(p50), ms(p90), ms(quantile(took, 1))),
		fmt.Sprintf("n=%d, <= 1 s", len(took)), verdict(quantile(took, 1) <= time.Second))
}

// runtimeDir is the world's $XDG_RUNTIME_DIR.
func (w *world) runtimeDir() string {
	for _, kv := range w.env {
		if v, ok := strings.CutPrefix(kv, "XDG_RUNTIME_DIR="); ok {
			return v
		}
	}
	return ""
}

func waitSocket(b *testing.B, sock string) {
	b.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			return
		}
	}
	b.Fatalf("nothing answers on %s", sock)
}

func waitPid(b *testing.B, path string) int {
	b.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if data, err := os.ReadFile(path); err == nil && len(data) > 0 {
			pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			return pid
		}
	}
	b.Fatalf("%s never appeared", path)
	return 0
}

// alive reports a live process (a zombie is dead).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(data), ')')
	return i > 0 && len(data) > i+2 && data[i+2] != 'Z'
}
