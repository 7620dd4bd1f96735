package resource

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func caps(avail ...string) *Capabilities {
	c := &Capabilities{}
	for _, l := range Order {
		ok := l == LayerNone || l == LayerSetrlimit
		for _, a := range avail {
			ok = ok || a == l
		}
		c.Layers = append(c.Layers, LayerStatus{Layer: l, Available: ok, Reason: "because " + l})
	}
	return c
}

func TestDecide(t *testing.T) {
	mem := Limits{MemoryMaxMB: 64}
	pids := Limits{PidsMax: 10}
	for _, tt := range []struct {
		name             string
		c                *Capabilities
		mode, preferred  string
		lim              Limits
		layer, warn, err string
	}{
		{"no limits need no layer", caps(LayerCgroup1), BestEffort, Auto, Limits{}, LayerNone, "", ""},
		{"required without limits enforces nothing", caps(LayerCgroup1), Required, LayerCgroup1, Limits{}, "", "", "no limit is set"},
		{"off", caps(LayerCgroup1), Off, Auto, mem, LayerNone, "", ""},
		{"auto picks the best", caps(LayerCgroup1, LayerCgroup2), BestEffort, Auto, mem, LayerCgroup2, "degraded to the cgroup2", ""},
		{"best of all, no warning", caps(LayerSystemd), BestEffort, Auto, mem, LayerSystemd, "", ""},
		{"required auto finds cgroup1", caps(LayerCgroup1), Required, Auto, pids, LayerCgroup1, "", ""},
		{"required auto, only setrlimit, pids", caps(), Required, Auto, pids, "", "", "no sandbox layer here can enforce"},
		{"required auto, only setrlimit, memory", caps(), Required, Auto, mem, LayerSetrlimit, "", ""},
		{"required preferred missing", caps(LayerCgroup1), Required, LayerSystemd, mem, "", "", "the systemd layer cannot be used here: because systemd"},
		{"besteffort preferred missing", caps(LayerCgroup1), BestEffort, LayerSystemd, mem, LayerCgroup1, "degraded to the cgroup1 layer", ""},
		{"setrlimit cannot do pids", caps(), BestEffort, LayerSetrlimit, pids, LayerSetrlimit, "setrlimit cannot enforce pids_max", ""},
		{"forced setrlimit", caps(LayerCgroup1), BestEffort, LayerSetrlimit, mem, LayerSetrlimit, "", ""},
	} {
		p, err := Decide(tt.c, tt.mode, tt.preferred, tt.lim)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err %v, want %q", tt.name, err, tt.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case p.Layer != tt.layer || (tt.warn == "") != (p.Warning == "") || !strings.Contains(p.Warning, tt.warn):
			t.Errorf("%s: got %s %q, want %s %q", tt.name, p.Layer, p.Warning, tt.layer, tt.warn)
		}
	}
}

// TestProbeFakeTrees runs the probe over fake cgroup file systems.
func TestProbeFakeTrees(t *testing.T) {
	write := func(p, s string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(s), 0o644)
	}
	none := func(string) (string, error) { return "", os.ErrNotExist }

	// Hybrid v1 with a v2 mount that has no memory controller.
	r := t.TempDir()
	write(filepath.Join(r, "self"), "4:memory:/a\n8:pids:/\n0::/\n")
	write(filepath.Join(r, "cg", "unified", "cgroup.controllers"), "hugetlb\n")
	write(filepath.Join(r, "cg", "memory", "a", "cgroup.procs"), "")
	write(filepath.Join(r, "cg", "pids", "cgroup.procs"), "")
	c := Probe(Host{CgroupRoot: filepath.Join(r, "cg"), SelfCgroup: filepath.Join(r, "self"), LookPath: none})
	if c.Best != LayerCgroup1 || c.MemoryDir != filepath.Join(r, "cg", "memory", "a") {
		t.Errorf("hybrid: best %s, memory dir %s", c.Best, c.MemoryDir)
	}
	if s := c.Status(LayerCgroup2); s.Available || !strings.Contains(s.Reason, "lacks the memory and pids controllers (it has: hugetlb)") {
		t.Errorf("cgroup2: %+v", s)
	}
	if s := c.Status(LayerSystemd); s.Available || s.Reason != "systemd-run is not installed" {
		t.Errorf("systemd: %+v", s)
	}

	// Pure v2 with a delegated group.
	r = t.TempDir()
	write(filepath.Join(r, "self"), "0::/user.slice/csa\n")
	write(filepath.Join(r, "cg", "cgroup.controllers"), "cpu memory pids\n")
	write(filepath.Join(r, "cg", "user.slice", "csa", "cgroup.controllers"), "memory pids\n")
	c = Probe(Host{CgroupRoot: filepath.Join(r, "cg"), SelfCgroup: filepath.Join(r, "self"), LookPath: none})
	if c.Best != LayerCgroup2 || c.Cgroup2Dir != filepath.Join(r, "cg", "user.slice", "csa") {
		t.Errorf("v2: best %s, dir %s", c.Best, c.Cgroup2Dir)
	}
	if s := c.Status(LayerCgroup1); s.Available {
		t.Errorf("cgroup1 on a pure v2 host: %+v", s)
	}
}
