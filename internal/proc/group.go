package proc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

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
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if string(kv) == tag {
				pids = append(pids, pid)
				break
			}
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

// groupOf reads the process group from /proc/PID/stat (field 5; the comm
// field may hold spaces, so parse after its closing parenthesis).
func groupOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 {
		return -1
	}
	g, err := strconv.Atoi(f[2])
	if err != nil {
		return -1
	}
	return g
}

// Alive reports whether pid exists (zombies included).
func Alive(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) == nil
}
