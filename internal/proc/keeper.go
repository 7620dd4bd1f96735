package proc

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// KeeperCommand is the hidden csa command a keeper runs as.
const KeeperCommand = "__keep"

// A Keeper ends what is left of a run when its supervisor dies without
// recording the end (SIGKILL, the OOM killer): the program dies with its
// supervisor (DieWithParent), but its children need not, and setsid'd
// ones (an MCP server, a daemon) leave its group. The keeper is a small
// process whose standard input is a pipe only the supervisor holds; when
// the supervisor dies the kernel closes it, and the keeper kills the run's
// process groups, the processes of its cgroup and every process carrying
// the run's tag in its environment, then removes the cgroup. A run that
// ends normally tells the keeper so, and it exits touching nothing.
type Keeper struct {
	w     *os.File
	ready chan struct{}
}

// keeperScript is the keeper while the run lives: a shell (a few hundred
// microseconds to start, where csa takes milliseconds) that collects what
// the supervisor tells it and, when its input ends without "done", hands
// it to `csa __keep`, which sweeps.
const keeperScript = `csa=$0 lines=
while IFS= read -r l; do
	[ "$l" = done ] && exit 0
	lines="$lines$l
"
done
printf %s "$lines" | exec "$csa" ` + KeeperCommand

// StartKeeper starts a keeper in the background and returns at once: a
// supervisor starts it early, overlapping its own start-up, and waits
// for it (Ready) before the program starts, so that whatever the program
// starts has a keeper, however soon the supervisor dies. csaExe sweeps.
// The keeper starts outside the run and in a session of its own, with an
// empty environment, so that neither the run's signals nor a keeper of a
// parent run (which kills what carries its own tag) reach it.
func StartKeeper(csaExe string) *Keeper {
	k := &Keeper{ready: make(chan struct{})}
	r, w, err := os.Pipe()
	if err != nil {
		close(k.ready)
		return k
	}
	k.w = w
	spec := Spec{Path: "/bin/sh", Args: []string{"-c", keeperScript, csaExe}, Env: []string{}, Dir: "/", Stdin: r}
	if _, err := os.Stat(spec.Path); err != nil {
		spec.Path, spec.Args = csaExe, []string{KeeperCommand}
	}
	go func() {
		defer close(k.ready)
		defer r.Close()
		p, err := Start(spec) // reaped by its own waiter
		if err != nil {
			w.Close()
			k.w = nil
			return
		}
		// While the run lives the keeper only waits: the rest of its start
		// (the shell's loader) must not take CPU from the run's.
		syscall.Setpriority(syscall.PRIO_PROCESS, p.Pid, keeperNice)
	}()
	return k
}

// Ready waits until the keeper has started (or failed to).
func (k *Keeper) Ready() { <-k.ready }

// Tag tells the keeper what the run's processes carry in their
// environment (CSA_SESSION_ID=<id>).
func (k *Keeper) Tag(tag string) { k.say("tag " + tag + "\n") }

// Group tells the keeper the run's process group.
func (k *Keeper) Group(pgid int) { k.say(fmt.Sprintf("pgid %d\n", pgid)) }

// Cgroup tells the keeper a cgroup.procs file of the run's cgroup.
func (k *Keeper) Cgroup(procsFile string) { k.say("procs " + procsFile + "\n") }

func (k *Keeper) say(line string) {
	k.Ready()
	if k.w != nil {
		k.w.WriteString(line)
	}
}

// Release tells the keeper the run ended under its supervisor. It does not
// wait for it to exit: the keeper reads "done" and exits by itself, even
// after its supervisor has. A nil Keeper is fine.
func (k *Keeper) Release() {
	if k == nil {
		return
	}
	k.Ready()
	if k.w == nil {
		return
	}
	k.say("done\n")
	k.w.Close()
	k.w = nil
}

// keeperNice is the keeper's priority while it waits; the sweep takes back
// the usual one (root may; others sweep at this one).
const keeperNice = 19

// sweepFor bounds how long a keeper keeps killing: processes may fork
// while it works.
const sweepFor = 800 * time.Millisecond

// KeeperMain is the keeper process; its input is what the supervisor said
// (tag, pgid and procs lines, done at a normal end). It returns its exit
// status.
func KeeperMain(args []string) int {
	if len(args) != 0 {
		fmt.Fprintln(os.Stderr, "usage: csa "+KeeperCommand+" < what the supervisor said")
		return 2
	}
	var tags []string
	var pgids []int
	var procs []string
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		verb, arg, _ := strings.Cut(sc.Text(), " ")
		switch verb {
		case "done":
			return 0
		case "pgid":
			if n, err := strconv.Atoi(arg); err == nil && n > 1 {
				pgids = append(pgids, n)
			}
		case "procs":
			procs = append(procs, arg)
		case "tag":
			if strings.Contains(arg, "=") {
				tags = append(tags, arg)
			}
		}
	}
	// The supervisor died before the run ended.
	syscall.Setpriority(syscall.PRIO_PROCESS, 0, 0)
	Sweep(pgids, tags, procs)
	return 0
}

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
		for _, pid := range leftovers(pgids, tags) {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				n++
			}
		}
		if n == 0 || time.Now().After(deadline) {
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
// groups pgids or whose environment holds one of tags, except this one.
func leftovers(pgids []int, tags []string) []int {
	if len(pgids) == 0 && len(tags) == 0 {
		return nil
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self || pid <= 1 {
			continue
		}
		st, ok := Stat(pid)
		if !ok || st.State == 'Z' {
			continue
		}
		if slices.Contains(pgids, st.PGID) {
			pids = append(pids, pid)
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if slices.Contains(tags, string(kv)) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}
