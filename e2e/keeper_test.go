package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const keeperScript = `
[[rule]]
name = "escape"
contains = "e2e keeper"
  [[rule.step]]
  shell = "setsid sh -c 'trap \"\" HUP TERM; exec sleep 300' >/dev/null 2>&1 & echo $! > %s"
  [[rule.step]]
  text = "Started it."
  delay_ms = 60000
`

// TestRealAgentKeeper: real Claude Code's shell tool starts a process that
// leaves its group and ignores SIGHUP and SIGTERM; the supervising csa is
// SIGKILLed mid-run. With no other csa command run, the run's keeper ends
// that process and every other one carrying the run's tag.
func TestRealAgentKeeper(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "escaped.pid")
	w := newWorld(t, fmt.Sprintf(keeperScript, pidfile))
	c := exec.Command(csaBin, "run", "--tool", "claude-code", "e2e keeper")
	c.Dir, c.Env = w.proj, w.env
	var errb bytes.Buffer
	c.Stderr = &errb
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	var pid int
	for deadline := time.Now().Add(2 * time.Minute); pid == 0; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(pidfile); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent never started the escaping process\n%s%s", errb.String(), w.requests())
		}
	}
	if !running(pid) {
		t.Fatalf("the escaping process %d is not running", pid)
	}
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
	for deadline := time.Now().Add(10 * time.Second); running(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d outlived its run's supervisor", pid)
		}
	}
	// Nothing else of the run is left (found without a csa command, which
	// would clean up itself).
	dirs, _ := filepath.Glob(filepath.Join(w.stateDir(), "projects", "*", "sessions", "*"))
	if len(dirs) != 1 {
		t.Fatalf("sessions: %v", dirs)
	}
	if left := tagged(filepath.Base(dirs[0])); len(left) > 0 {
		t.Fatalf("left behind: %v", left)
	}
}

// running reports a live (not zombie) process.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && len(b) > i+2 && b[i+2] != 'Z'
}

// stateDir is the world's CSA_STATE_DIR.
func (w *world) stateDir() string {
	for _, kv := range w.env {
		if v, ok := strings.CutPrefix(kv, "CSA_STATE_DIR="); ok {
			return v
		}
	}
	return ""
}
