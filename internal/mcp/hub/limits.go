package hub

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/csa-dev/csa/internal/resource"
	"github.com/csa-dev/csa/internal/session"
)

// hostCapabilities is what this host offers for resource limits, probed
// once: it does not change while the hub runs. (A variable for tests.)
var hostCapabilities = sync.OnceValue(func() *resource.Capabilities {
	return resource.Probe(resource.RealHost())
})

// limited is how one server process is confined: csa's own resource
// layers (the same plan, cgroup and exec shim as a run's), never a second
// implementation.
type limited struct {
	plan  resource.Plan
	group *resource.Group // cgroup layers only
}

// confine returns the program and arguments that start the server within
// memory_max_mb and pids_max. The best layer there is applies
// (BestEffort, logged when it is less than the limits ask): a missing
// layer should not keep a tool server from running. The shim is the
// program running the hub (csa-mcp), which implements resource.ShimCommand.
func (b *backend) confine() (string, []string, *limited, error) {
	lim := resource.Limits{MemoryMaxMB: b.cfg.MemoryMaxMB, PidsMax: b.cfg.PidsMax}
	if !lim.Any() {
		return b.cfg.Command, b.args(), nil, nil
	}
	caps := hostCapabilities()
	plan, err := resource.Decide(caps, resource.BestEffort, resource.Auto, lim)
	if err != nil {
		return "", nil, nil, err
	}
	b.mu.Lock()
	warn := plan.Warning != "" && b.layer == ""
	b.layer = plan.Layer
	b.mu.Unlock()
	if warn {
		fmt.Fprintf(b.hub.logw, "csa-mcp hub: %s: %s\n", b.label(), plan.Warning)
	}
	shim, err := os.Executable()
	if err != nil {
		return "", nil, nil, err
	}
	l := &limited{plan: plan}
	id := session.NewID(time.Now()) // csa gc knows csa-<ULID> groups
	if plan.Layer == resource.LayerCgroup1 || plan.Layer == resource.LayerCgroup2 {
		if l.group, err = resource.NewGroup(caps, plan.Layer, id, lim); err != nil {
			return "", nil, nil, err
		}
	}
	prog, args := resource.Wrap(plan, caps, l.group, shim, resource.GroupName(id), b.cfg.Command, b.args())
	return prog, args, l, nil
}

// oom says how a process under a memory limit died of it, or "".
func (l *limited) oom(st *os.ProcessState) string {
	if l == nil || l.plan.Limits.MemoryMaxMB == 0 {
		return ""
	}
	mb := l.plan.Limits.MemoryMaxMB
	if l.group != nil {
		if kills, _ := l.group.Events(); kills > 0 {
			return fmt.Sprintf("exited, killed by the kernel's OOM killer at its memory limit (memory_max_mb %d)", mb)
		}
		return ""
	}
	if l.plan.Layer == resource.LayerSetrlimit && st != nil && st.ExitCode() != 0 {
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && !ws.Signaled() {
			return fmt.Sprintf("exited with status %d under its address-space limit (RLIMIT_AS %d MB): presumably out of memory", st.ExitCode(), mb)
		}
	}
	return ""
}

// remove deletes the process's cgroup once it is gone.
func (l *limited) remove() {
	if l != nil && l.group != nil {
		l.group.Remove()
	}
}
