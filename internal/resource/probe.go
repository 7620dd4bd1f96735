// Package resource is csa's resource control: which sandbox layers this
// host offers (cgroup v2 through systemd or directly, cgroup v1, setrlimit),
// per-run groups with memory and process limits, peak-memory tracking,
// usage statistics, the pre-flight memory check and concurrency slots.
package resource

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/proc"
)

// Layers, best first.
const (
	LayerSystemd   = "systemd"
	LayerCgroup2   = "cgroup2"
	LayerCgroup1   = "cgroup1"
	LayerSetrlimit = "setrlimit"
	LayerNone      = "none"
)

// Order is the preference of layers, best first.
var Order = []string{LayerSystemd, LayerCgroup2, LayerCgroup1, LayerSetrlimit, LayerNone}

// LayerStatus says whether a layer works here, and why not.
type LayerStatus struct {
	Layer     string `json:"layer"`
	Available bool   `json:"available"`
	Reason    string `json:"reason"`
}

// Capabilities is what the probe found. Paths are where csa creates its
// per-run groups: under csa's own cgroup, so no limit of a parent is
// escaped.
type Capabilities struct {
	Layers     []LayerStatus `json:"layers"`
	Best       string        `json:"best"`
	Cgroup2Dir string        `json:"cgroup2_dir,omitempty"`
	MemoryDir  string        `json:"cgroup1_memory_dir,omitempty"`
	PidsDir    string        `json:"cgroup1_pids_dir,omitempty"`
	SystemdRun string        `json:"systemd_run,omitempty"`
	BootID     string        `json:"boot_id"`
	ProbedAt   time.Time     `json:"probed_at"`
}

// Status returns the status of layer.
func (c *Capabilities) Status(layer string) LayerStatus {
	for _, l := range c.Layers {
		if l.Layer == layer {
			return l
		}
	}
	return LayerStatus{Layer: layer, Reason: "unknown layer"}
}

// Host describes where the probe looks; tests point it at a fake cgroupfs
// and a fake systemd-run.
type Host struct {
	CgroupRoot string // /sys/fs/cgroup
	SelfCgroup string // /proc/self/cgroup
	BootIDFile string // /proc/sys/kernel/random/boot_id
	LookPath   func(string) (string, error)
}

// RealHost is this machine.
func RealHost() Host {
	return Host{CgroupRoot: "/sys/fs/cgroup", SelfCgroup: "/proc/self/cgroup",
		BootIDFile: "/proc/sys/kernel/random/boot_id", LookPath: exec.LookPath}
}

// Probe finds the layers this host offers.
func Probe(h Host) *Capabilities {
	c := &Capabilities{ProbedAt: time.Now().UTC()}
	if b, err := os.ReadFile(h.BootIDFile); err == nil {
		c.BootID = strings.TrimSpace(string(b))
	}
	own := ownCgroups(h.SelfCgroup)
	c.Layers = []LayerStatus{
		probeSystemd(h, c),
		probeCgroup2(h, own, c),
		probeCgroup1(h, own, c),
		{Layer: LayerSetrlimit, Available: true, Reason: "RLIMIT_AS is enforced by the kernel; RLIMIT_NPROC is not used (it counts every process of the user and is not enforced for root)"},
		{Layer: LayerNone, Available: true, Reason: "no limits, peak memory sampled"},
	}
	for _, l := range c.Layers {
		if l.Available {
			c.Best = l.Layer
			break
		}
	}
	return c
}

// ownCgroups reads /proc/self/cgroup: controller (or "" for the unified
// hierarchy) -> path.
func ownCgroups(path string) map[string]string {
	own := map[string]string{}
	f, err := os.Open(path)
	if err != nil {
		return own
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			own[""] = parts[2]
			continue
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			own[ctl] = parts[2]
		}
	}
	return own
}

func probeSystemd(h Host, c *Capabilities) LayerStatus {
	st := LayerStatus{Layer: LayerSystemd}
	path, err := h.LookPath("systemd-run")
	if err != nil {
		st.Reason = "systemd-run is not installed"
		return st
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	out, err := proc.Output(ctx, path, "--user", "--scope", "--quiet", "--collect", "true")
	if err != nil {
		st.Reason = "systemd-run --user --scope does not work: " + firstLine(string(out), err)
		return st
	}
	st.Available, st.Reason, c.SystemdRun = true, "transient user scopes through "+path, path
	return st
}

func probeCgroup2(h Host, own map[string]string, c *Capabilities) LayerStatus {
	st := LayerStatus{Layer: LayerCgroup2}
	mount := ""
	for _, d := range []string{h.CgroupRoot, filepath.Join(h.CgroupRoot, "unified")} {
		if _, err := os.Stat(filepath.Join(d, "cgroup.controllers")); err == nil {
			mount = d
			break
		}
	}
	if mount == "" {
		st.Reason = "no cgroup2 hierarchy is mounted"
		return st
	}
	rel, ok := own[""]
	if !ok {
		st.Reason = "csa's process is in no cgroup2 group"
		return st
	}
	dir := filepath.Join(mount, rel)
	ctl, _ := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	have := strings.Fields(string(ctl))
	if !contains(have, "memory") || !contains(have, "pids") {
		st.Reason = fmt.Sprintf("cgroup2 at %s lacks the memory and pids controllers (it has: %s)", dir, orNone(have))
		return st
	}
	if err := writable(dir); err != nil {
		st.Reason = fmt.Sprintf("cgroup2 group %s is not delegated to csa: %v", dir, err)
		return st
	}
	st.Available, st.Reason, c.Cgroup2Dir = true, "delegated cgroup2 group "+dir, dir
	return st
}

func probeCgroup1(h Host, own map[string]string, c *Capabilities) LayerStatus {
	st := LayerStatus{Layer: LayerCgroup1}
	var dirs [2]string
	for i, ctl := range []string{"memory", "pids"} {
		rel, ok := own[ctl]
		if !ok {
			st.Reason = fmt.Sprintf("no cgroup1 %s hierarchy", ctl)
			return st
		}
		d := filepath.Join(h.CgroupRoot, ctl, rel)
		if _, err := os.Stat(filepath.Join(d, "cgroup.procs")); err != nil {
			st.Reason = fmt.Sprintf("cgroup1 %s hierarchy is not mounted at %s", ctl, filepath.Join(h.CgroupRoot, ctl))
			return st
		}
		if err := writable(d); err != nil {
			st.Reason = fmt.Sprintf("cgroup1 %s group %s is not writable (needs root): %v", ctl, d, err)
			return st
		}
		dirs[i] = d
	}
	st.Available, st.Reason = true, fmt.Sprintf("cgroup1 memory group %s and pids group %s", dirs[0], dirs[1])
	c.MemoryDir, c.PidsDir = dirs[0], dirs[1]
	return st
}

// writable checks that a sub-directory can be made in dir.
func writable(dir string) error {
	probe, err := os.MkdirTemp(dir, "csa-probe-")
	if err != nil {
		return err
	}
	return os.Remove(probe)
}

// CapabilitiesFile caches the probe in the state directory.
const CapabilitiesFile = "capabilities.json"

// Cached returns the probe cached at path while the machine has not
// rebooted, probing (and caching) otherwise.
func Cached(path string, h Host) *Capabilities {
	boot, _ := os.ReadFile(h.BootIDFile)
	if b, err := os.ReadFile(path); err == nil {
		var c Capabilities
		if json.Unmarshal(b, &c) == nil && c.BootID != "" && c.BootID == strings.TrimSpace(string(boot)) && len(c.Layers) == len(Order) {
			return &c
		}
	}
	c := Probe(h)
	if b, err := json.MarshalIndent(c, "", "  "); err == nil {
		fsutil.MkdirPrivate(filepath.Dir(path))
		fsutil.WriteFileAtomic(path, b)
	}
	return c
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, " ")
}

func firstLine(out string, err error) string {
	s := strings.TrimSpace(out)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		s = err.Error()
	}
	return s
}
