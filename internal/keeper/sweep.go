package keeper

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/csa-dev/csa/internal/proc"
)

// Command is the hidden csa command that sweeps for a run's own keeper.
const Command = "__keep"

// orders is what a supervisor told its keeper.
type orders struct {
	tags  []string
	pgids []int
	procs []string
}

// readOrders reads what a supervisor says until it says "done" (released)
// or its end closes.
func readOrders(r io.Reader) (o orders, released bool) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		verb, arg, _ := strings.Cut(sc.Text(), " ")
		switch verb {
		case "done":
			return o, true
		case "pgid":
			if n, err := strconv.Atoi(arg); err == nil && n > 1 {
				o.pgids = append(o.pgids, n)
			}
		case "procs":
			o.procs = append(o.procs, arg)
		case "tag":
			if strings.Contains(arg, "=") {
				o.tags = append(o.tags, arg)
			}
		}
	}
	return o, false
}

// Main is `csa __keep`: its input is what the supervisor said. It returns
// its exit status.
func Main(args []string) int {
	if len(args) != 0 {
		fmt.Fprintln(os.Stderr, "usage: csa "+Command+" < what the supervisor said")
		return 2
	}
	o, released := readOrders(os.Stdin)
	if released {
		return 0
	}
	// The supervisor died before the run ended.
	Sweep(o.pgids, o.tags, o.procs)
	return 0
}

// sweepFor bounds how long a keeper keeps killing: processes may fork
// while it works.
const sweepFor = 800 * time.Millisecond

// Sweep kills a run's leftovers: its process groups, the processes of its
// cgroup and those carrying one of tags, until none is left (bounded),
// then removes the cgroup directories.
func Sweep(pgids []int, tags []string, procs []string) {
	deadline := time.Now().Add(sweepFor)
	for {
		n := 0
		for _, f := range procs {
			for _, pid := range pidsIn(f) {
				if syscall.Kill(pid, syscall.SIGKILL) == nil {
					n++
				}
			}
		}
		pids, unsettled := leftovers(pgids, tags)
		for _, pid := range pids {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				n++
			}
		}
		if n == 0 && unsettled == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, f := range procs {
		removeDir(filepath.Dir(f))
	}
}

// removeDir removes an emptied cgroup; the kernel needs a moment after
// the last kill.
func removeDir(dir string) {
	for i := 0; i < 25; i++ {
		if err := os.Remove(dir); err == nil || os.IsNotExist(err) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func pidsIn(file string) []int {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range bytes.Fields(b) {
		if pid, err := strconv.Atoi(string(f)); err == nil && pid > 1 {
			out = append(out, pid)
		}
	}
	return out
}

// leftovers lists the live processes (zombies are dead already) of the
// groups pgids or whose environment holds one of tags, except this one;
// unsettled counts those in the middle of an execve, whose environment
// cannot be read yet.
func leftovers(pgids []int, tags []string) (pids []int, unsettled int) {
	if len(pgids) == 0 && len(tags) == 0 {
		return nil, 0
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, 0
	}
	self := os.Getpid()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self || pid <= 1 {
			continue
		}
		st, ok := proc.Stat(pid)
		if !ok || st.State == 'Z' {
			continue
		}
		if slices.Contains(pgids, st.PGID) {
			pids = append(pids, pid)
			continue
		}
		tagged, settled := proc.HasTag(pid, tags)
		if tagged {
			pids = append(pids, pid)
		} else if !settled {
			unsettled++
		}
	}
	return pids, unsettled
}
