package mcptest

import (
	"os"
	"strconv"
	"time"

	"github.com/csa-dev/csa/internal/proc"
)

// Tagged lists the live processes (zombies aside) whose environment holds
// tag ("NAME=value"), for tests that a client left no server behind. A
// process caught in an execve is asked again until it settles.
func Tagged(tag string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		tagged, settled := proc.HasTag(pid, []string{tag})
		for deadline := time.Now().Add(time.Second); !settled && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
			tagged, settled = proc.HasTag(pid, []string{tag})
		}
		if st, ok := proc.Stat(pid); tagged && ok && st.State != 'Z' {
			pids = append(pids, pid)
		}
	}
	return pids
}
