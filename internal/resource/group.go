package resource

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
type Group struct {
	Layer string
	// Procs are the files the program's pid is written into.
	Procs []string
	dirs  []string
	mem   string // directory holding the memory controller files
	pids  string // directory holding the pids controller files
	v2    bool
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

// Remove deletes the group. The kernel refuses while processes remain, so
// it retries briefly: they are being killed.
func (g *Group) Remove() error {
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

// RemoveOrphan removes a leftover group directory if no process is in it.
func RemoveOrphan(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err == nil && len(strings.TrimSpace(string(b))) > 0 {
		return fmt.Errorf("cgroup %s still has processes", dir)
	}
	return os.Remove(dir)
}

// OrphanGroups lists the csa-* groups of this host (ids), for csa gc.
func OrphanGroups(c *Capabilities) map[string][]string {
	out := map[string][]string{}
	for _, root := range []string{c.MemoryDir, c.PidsDir, c.Cgroup2Dir} {
		if root == "" {
			continue
		}
		ents, _ := os.ReadDir(root)
		for _, e := range ents {
			if e.IsDir() && strings.HasPrefix(e.Name(), "csa-") && len(e.Name()) == 4+26 {
				id := strings.TrimPrefix(e.Name(), "csa-")
				out[id] = append(out[id], filepath.Join(root, e.Name()))
			}
		}
	}
	return out
}
