package resource

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Limits of one run. Zero means no limit.
type Limits struct {
	MemoryMaxMB     int64
	MemorySwapMaxMB int64
	PidsMax         int64
}

// Any reports whether any limit is set.
func (l Limits) Any() bool { return l.MemoryMaxMB > 0 || l.MemorySwapMaxMB > 0 || l.PidsMax > 0 }

// Group is a per-run cgroup: the program joins it before it runs any code
// of its own (through csa's exec shim), and it is removed when the run ends.
// Until then the process that made it holds a shared flock on each of its
// directories, so that csa gc, from any state directory, can tell a live
// run's group from one its supervisor left behind.
type Group struct {
	Layer string
	// Procs are the files the program's pid is written into.
	Procs []string
	dirs  []string
	mem   string // directory holding the memory controller files
	pids  string // directory holding the pids controller files
	v2    bool
	held  []*os.File
}

// GroupName is the directory name of a session's group.
func GroupName(sessionID string) string { return "csa-" + sessionID }

// NewGroup creates the group of a session on a cgroup layer.
func NewGroup(c *Capabilities, layer, sessionID string, lim Limits) (*Group, error) {
	name := GroupName(sessionID)
	switch layer {
	case LayerCgroup1:
		if c.MemoryDir == "" || c.PidsDir == "" {
			return nil, fmt.Errorf("cgroup1 is not available here")
		}
		g := &Group{Layer: layer, mem: filepath.Join(c.MemoryDir, name), pids: filepath.Join(c.PidsDir, name)}
		g.dirs = []string{g.mem, g.pids}
		g.Procs = []string{filepath.Join(g.mem, "cgroup.procs"), filepath.Join(g.pids, "cgroup.procs")}
		return g, g.create(lim)
	case LayerCgroup2:
		if c.Cgroup2Dir == "" {
			return nil, fmt.Errorf("cgroup2 is not available here")
		}
		dir := filepath.Join(c.Cgroup2Dir, name)
		g := &Group{Layer: layer, mem: dir, pids: dir, dirs: []string{dir}, v2: true,
			Procs: []string{filepath.Join(dir, "cgroup.procs")}}
		// Controllers must be enabled for children before a child group
		// can use them.
		enableControllers(c.Cgroup2Dir)
		return g, g.create(lim)
	}
	return nil, fmt.Errorf("layer %s has no groups", layer)
}

func enableControllers(parent string) {
	f := filepath.Join(parent, "cgroup.subtree_control")
	cur, _ := os.ReadFile(f)
	for _, c := range []string{"memory", "pids"} {
		if !contains(strings.Fields(string(cur)), c) {
			os.WriteFile(f, []byte("+"+c), 0o644)
		}
	}
}

func (g *Group) create(lim Limits) error {
	for _, d := range g.dirs {
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			g.Remove()
			return fmt.Errorf("create cgroup %s: %w", d, err)
		}
		g.hold(d)
	}
	var writes [][2]string
	if g.v2 {
		if lim.MemoryMaxMB > 0 {
			writes = append(writes, [2]string{"memory.max", mb(lim.MemoryMaxMB)})
		}
		if lim.MemorySwapMaxMB > 0 {
			writes = append(writes, [2]string{"memory.swap.max", mb(lim.MemorySwapMaxMB)})
		}
		if lim.PidsMax > 0 {
			writes = append(writes, [2]string{"pids.max", strconv.FormatInt(lim.PidsMax, 10)})
		}
	} else {
		if lim.MemoryMaxMB > 0 {
			writes = append(writes, [2]string{"memory.limit_in_bytes", mb(lim.MemoryMaxMB)})
			if lim.MemorySwapMaxMB > 0 {
				// v1 limits memory+swap together.
				writes = append(writes, [2]string{"memory.memsw.limit_in_bytes", mb(lim.MemoryMaxMB + lim.MemorySwapMaxMB)})
			}
		}
		if lim.PidsMax > 0 {
			writes = append(writes, [2]string{"pids.max", strconv.FormatInt(lim.PidsMax, 10)})
		}
	}
	for _, w := range writes {
		dir := g.mem
		if strings.HasPrefix(w[0], "pids.") {
			dir = g.pids
		}
		if err := os.WriteFile(filepath.Join(dir, w[0]), []byte(w[1]), 0o644); err != nil {
			if w[0] == "memory.memsw.limit_in_bytes" && errors.Is(err, os.ErrNotExist) {
				continue // the kernel does not account swap: nothing to limit
			}
			g.Remove()
			return fmt.Errorf("set %s: %w", w[0], err)
		}
	}
	return nil
}

func mb(n int64) string { return strconv.FormatInt(n<<20, 10) }

// Peak is the group's peak memory in bytes, from the kernel's own counter;
// ok is false where the kernel keeps none (cgroup2 before Linux 5.19).
func (g *Group) Peak() (bytes int64, ok bool) {
	name := "memory.max_usage_in_bytes"
	if g.v2 {
		name = "memory.peak"
	}
	b, err := os.ReadFile(filepath.Join(g.mem, name))
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil
}

// Events counts the OOM kills in the group and the forks refused by its
// pids limit.
func (g *Group) Events() (oomKills, pidsMax int64) {
	memEvents := "memory.oom_control" // v1: "oom_kill N"
	if g.v2 {
		memEvents = "memory.events" // v2: "oom_kill N"
	}
	oomKills = keyed(filepath.Join(g.mem, memEvents), "oom_kill")
	pidsMax = keyed(filepath.Join(g.pids, "pids.events"), "max")
	return
}

// keyed reads "key value" lines and returns the value of key.
func keyed(path, key string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 2 && f[0] == key {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// hold takes the group directory's shared lock for as long as this process
// lives or until Remove (close-on-exec: the program does not inherit it).
// Without it the group still works; csa gc then only sees its processes.
func (g *Group) hold(dir string) {
	f, err := os.Open(dir)
	if err != nil {
		return
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
		f.Close()
		return
	}
	g.held = append(g.held, f)
}

// Remove deletes the group. The kernel refuses while processes remain, so
// it retries briefly: they are being killed.
func (g *Group) Remove() error {
	defer func() {
		for _, f := range g.held {
			f.Close()
		}
		g.held = nil
	}()
	var errs []error
	for _, d := range g.dirs {
		var err error
		for i := 0; i < 50; i++ {
			if err = os.Remove(d); err == nil || errors.Is(err, os.ErrNotExist) {
				err = nil
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("remove cgroup %s: %w", d, err))
		}
	}
	return errors.Join(errs...)
}

// Leftover is a csa-* group directory found on this host: the session it
// was made for and the directory (one per cgroup v1 hierarchy).
type Leftover struct {
	ID  string
	Dir string
}

// Leftovers lists the csa-* group directories of this host, for csa gc.
// Each may belong to a live run of any state directory: see CheckOrphan.
func Leftovers(c *Capabilities) []Leftover {
	var out []Leftover
	for _, root := range []string{c.MemoryDir, c.PidsDir, c.Cgroup2Dir} {
		if root == "" {
			continue
		}
		ents, _ := os.ReadDir(root)
		for _, e := range ents {
			if e.IsDir() && strings.HasPrefix(e.Name(), "csa-") && len(e.Name()) == 4+26 {
				out = append(out, Leftover{ID: strings.TrimPrefix(e.Name(), "csa-"), Dir: filepath.Join(root, e.Name())})
			}
		}
	}
	return out
}

// InUseError says why a group directory is not an orphan. Live is set
// when a run owns it (its supervisor's lock, or it is being set up);
// otherwise processes are in it with no csa run holding it: a live run of
// a csa that takes no lock, or processes a dead run left behind.
type InUseError struct {
	Dir    string
	Reason string
	Live   bool
}

func (e *InUseError) Error() string { return fmt.Sprintf("cgroup %s is in use: %s", e.Dir, e.Reason) }

// CheckOrphan returns nil when dir is an orphan, which csa gc may remove:
// no csa process holds its lock, no process is in it, and it was made
// more than young ago (a run takes the lock right after making its group;
// young covers that moment, and runs of a csa that takes no lock while
// they start). It never changes anything.
func CheckOrphan(dir string, young time.Duration, now time.Time) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return held(dir, err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return vacant(dir, young, now)
}

// RemoveOrphan removes dir if it is an orphan (see CheckOrphan), holding
// its lock meanwhile so that no run takes it; otherwise it returns an
// *InUseError and leaves dir alone.
func RemoveOrphan(dir string, young time.Duration, now time.Time) error {
	f, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return held(dir, err)
	}
	if err := vacant(dir, young, now); err != nil {
		return err
	}
	if err := syscall.Rmdir(dir); err != nil {
		switch {
		case errors.Is(err, syscall.ENOENT):
			return nil
		case errors.Is(err, syscall.EBUSY):
			return &InUseError{Dir: dir, Reason: "the kernel says it is busy"}
		}
		return fmt.Errorf("remove cgroup %s: %w", dir, err)
	}
	return nil
}

func held(dir string, err error) error {
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return &InUseError{Dir: dir, Reason: "a live csa run holds it", Live: true}
	}
	return fmt.Errorf("lock cgroup %s: %w", dir, err)
}

// vacant checks that no process is in dir and that it is not young.
func vacant(dir string, young time.Duration, now time.Time) error {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read cgroup %s: %w", dir, err)
	}
	if n := len(strings.Fields(string(b))); n > 0 {
		what := "1 process"
		if n > 1 {
			what = fmt.Sprintf("%d processes", n)
		}
		return &InUseError{Dir: dir, Reason: what + " in it, and no csa run holds it"}
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if age := now.Sub(fi.ModTime()); age < young {
		return &InUseError{Dir: dir, Reason: fmt.Sprintf("made %s ago: its run may be starting", age.Round(time.Second)), Live: true}
	}
	return nil
}
