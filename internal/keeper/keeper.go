// Package keeper ends what is left of a run when its supervisor dies
// without recording the end (SIGKILL, the OOM killer). The program dies
// with its supervisor (a parent-death signal), but its children need not,
// and setsid'd ones (an MCP server, a daemon) leave its group.
//
// A supervisor tells a keeper the run's tag (what its processes carry in
// their environment), process groups and cgroups, over a connection only
// it holds. When the supervisor dies the kernel closes that connection,
// and the keeper kills the run's process groups, the processes of its
// cgroups and every process carrying its tag, then removes the cgroups. A
// run that ends normally says "done", and the keeper touches nothing.
//
// The keeper is a per-user daemon (`csa __keeperd`, on a socket in the
// private socket directory) that serves every run: a run pays for one
// connection, not for a process. Where no daemon answers, or it goes away
// during a run, the run starts a keeper of its own (a shell, then `csa
// __keep` to sweep).
package keeper

import (
	"io"
	"net"
	"os"
	"strconv"
	"sync"

	"github.com/csa-dev/csa/internal/proc"
)

// Config says how to keep a run.
type Config struct {
	// Exe is csa: the daemon, and the sweep of a run's own keeper.
	Exe string
	// Socket is the daemon's socket ("": no daemon).
	Socket string
	// StartDaemon starts the daemon when none answers. A supervisor that
	// is itself part of a run must not: the daemon would live on in that
	// run's cgroup.
	StartDaemon bool
}

// SocketName is the daemon's socket in the private socket directory; the
// number is the version of what a supervisor says, so that csa builds
// that disagree on it do not share a daemon.
const SocketName = "keeper-1.sock"

// A Keeper is a run's end of its keeper.
type Keeper struct {
	cfg   Config
	ready chan struct{}

	mu       sync.Mutex
	w        io.WriteCloser // to the keeper; nil if none could start
	said     []string       // what the keeper was told: a keeper taking over hears it again
	released bool
}

// Start finds the run a keeper in the background and returns at once: a
// supervisor starts it early, overlapping its own start-up, and waits for
// it (Ready) before the program starts, so that whatever the program
// starts is kept, however soon the supervisor dies.
func Start(c Config) *Keeper {
	k := &Keeper{cfg: c, ready: make(chan struct{})}
	go func() {
		if conn := dial(c.Socket); conn != nil {
			k.w = conn
			close(k.ready)
			k.watch(conn)
			return
		}
		if w := startOwn(c.Exe); w != nil {
			k.w = w
		}
		close(k.ready)
		if c.StartDaemon && c.Socket != "" {
			startDaemon(c)
		}
	}()
	return k
}

// Ready waits until the keeper is there (or none could start).
func (k *Keeper) Ready() { <-k.ready }

// Tag tells the keeper what the run's processes carry in their
// environment (CSA_SESSION_ID=<id>).
func (k *Keeper) Tag(tag string) { k.say("tag " + tag + "\n") }

// Group tells the keeper a process group of the run.
func (k *Keeper) Group(pgid int) { k.say("pgid " + strconv.Itoa(pgid) + "\n") }

// Cgroup tells the keeper a cgroup.procs file of the run's cgroup.
func (k *Keeper) Cgroup(procsFile string) { k.say("procs " + procsFile + "\n") }

func (k *Keeper) say(line string) {
	k.Ready()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.said = append(k.said, line)
	if k.w != nil {
		// A daemon that died takes this line with it; watch replays it.
		io.WriteString(k.w, line)
	}
}

// Release tells the keeper the run ended under its supervisor. It does not
// wait: a keeper of the run's own reads "done" and exits by itself, even
// after its supervisor has. A nil Keeper is fine.
func (k *Keeper) Release() {
	if k == nil {
		return
	}
	k.Ready()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.released = true
	if k.w != nil {
		io.WriteString(k.w, "done\n")
		k.w.Close()
		k.w = nil
	}
}

// watch waits for the daemon to close the run's connection, which it
// does only when it goes away (killed, or quitting as the run connected);
// a keeper of the run's own then takes over.
func (k *Keeper) watch(c net.Conn) {
	io.Copy(io.Discard, c)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.released {
		return
	}
	c.Close()
	k.w = nil
	if w := startOwn(k.cfg.Exe); w != nil {
		k.w = w
		for _, l := range k.said {
			io.WriteString(w, l)
		}
	}
}

func dial(socket string) net.Conn {
	if socket == "" {
		return nil
	}
	c, err := net.Dial("unix", socket)
	if err != nil {
		return nil
	}
	return c
}

// ownScript is a run's own keeper: a shell (a few hundred microseconds to
// start, where csa takes milliseconds) that collects what the supervisor
// says and, when its input ends without "done", hands it to `csa __keep`,
// which sweeps.
const ownScript = `csa=$0 lines=
while IFS= read -r l; do
	[ "$l" = done ] && exit 0
	lines="$lines$l
"
done
printf %s "$lines" | exec "$csa" ` + Command

// startOwn starts a keeper for this run alone and returns the pipe to it.
// It starts outside the run, in a session of its own and with an empty
// environment, so that neither the run's signals nor a keeper of a parent
// run (which kills what carries its own tag) reach it.
func startOwn(exe string) *os.File {
	if exe == "" {
		return nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	defer r.Close()
	spec := proc.Spec{Path: "/bin/sh", Args: []string{"-c", ownScript, exe}, Env: []string{}, Dir: "/", Stdin: r}
	if _, err := os.Stat(spec.Path); err != nil {
		spec.Path, spec.Args = exe, []string{Command}
	}
	// Not niced: a user may not take the priority back, and a sweep at
	// the lowest one waits for CPU for seconds on a busy machine.
	if _, err := proc.Start(spec); err != nil { // reaped by its own waiter
		w.Close()
		return nil
	}
	return w
}

// startDaemon starts the daemon for the runs after this one. Of daemons
// started at once, one serves and the others exit.
func startDaemon(c Config) {
	proc.Start(proc.Spec{Path: c.Exe, Args: []string{DaemonCommand, c.Socket}, Env: []string{}, Dir: "/"})
}
