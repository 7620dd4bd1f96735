package proc

import (
	"os"
	"strconv"
	"syscall"
	"time"
)

// settleFor bounds how long TaggedMembers waits for a process in the
// middle of an execve.
const settleFor = 500 * time.Millisecond

// TaggedMembers returns the pids of processes in group pgid whose
// environment holds tag (for example "CSA_SESSION_ID=<id>"). The tag check
// keeps a recycled group id from ever pointing csa at a stranger.
func TaggedMembers(pgid int, tag string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if groupOf(pid) != pgid {
			continue
		}
		tagged, settled := HasTag(pid, []string{tag})
		for deadline := time.Now().Add(settleFor); !settled && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
			tagged, settled = HasTag(pid, []string{tag})
		}
		if tagged {
			pids = append(pids, pid)
		}
	}
	return pids
}

// KillTagged SIGKILLs the members TaggedMembers finds and returns how many.
func KillTagged(pgid int, tag string) int {
	pids := TaggedMembers(pgid, tag)
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return len(pids)
}

// groupOf is the process group of pid, -1 when it is gone.
func groupOf(pid int) int {
	e, ok := Stat(pid)
	if !ok {
		return -1
	}
	return e.PGID
}

// Alive reports whether pid exists (zombies included).
func Alive(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) == nil
}
