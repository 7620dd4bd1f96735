package runner

import (
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/csa-dev/csa/internal/resource"
	"github.com/csa-dev/csa/internal/sandbox"
	"github.com/csa-dev/csa/internal/session"
)

// confine creates the run's cgroup where its layer has one, and wraps the
// program so that it starts inside its limits. Its file confinement is
// either the exec shim's, when the layer runs the shim anyway, or rs: the
// Landlock ruleset for the thread that starts the program. pol is the
// run's policy with its proxy's address (netConfine).
func confine(id string, sb Sandbox, pol *sandbox.Policy, program string, argv []string) (prog string, args []string, g *resource.Group, rs *sandbox.Ruleset, err error) {
	prog, args = program, argv
	switch sb.Plan.Layer {
	case resource.LayerCgroup1, resource.LayerCgroup2:
		if g, err = resource.NewGroup(sb.Caps, sb.Plan.Layer, id, sb.Plan.Limits); err != nil {
			return "", nil, nil, nil, err
		}
		fallthrough
	case resource.LayerSystemd, resource.LayerSetrlimit:
		prog, args = resource.Wrap(sb.Plan, sb.Caps, g, sb.CsaExe, resource.GroupName(id), program, argv)
	}
	if !pol.Enforced() {
		return prog, args, g, nil, nil
	}
	if prog == sb.CsaExe && len(args) > 0 && args[0] == resource.ShimCommand {
		// The shim joins the cgroup before it confines itself.
		return prog, append(append([]string{resource.ShimCommand}, pol.ShimArgs()...), args[1:]...), g, nil, nil
	}
	if rs, err = sandbox.Build(pol); err != nil {
		if g != nil {
			g.Remove()
		}
		return "", nil, nil, nil, err
	}
	return prog, args, g, rs, nil
}

// usage is what a run consumed, and what its limits did to it.
type usage struct {
	peakBytes int64
	source    string // cgroup (the kernel's own counter) or sampled
	oomKills  int64
	pidsHits  int64
}

// measure reads the peak and the limit events once the program is gone,
// then removes the group.
func measure(g *resource.Group, sampler *resource.Sampler, ps *os.ProcessState) usage {
	var u usage
	if sampler != nil {
		u.peakBytes, u.source = sampler.Stop(), "sampled"
	}
	if ps != nil {
		// The leader's own high-water mark catches runs shorter than one
		// sampling interval.
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru.Maxrss*1024 > u.peakBytes {
			u.peakBytes = ru.Maxrss * 1024
		}
	}
	if g != nil {
		if peak, ok := g.Peak(); ok {
			u.peakBytes, u.source = peak, "cgroup"
		}
		u.oomKills, u.pidsHits = g.Events()
		g.Remove()
	}
	return u
}

// record writes the resource facts into the state; it returns the failure
// that replaces the program's own when the kernel killed it for memory.
func (u usage) record(st *session.State, plan resource.Plan, ps *os.ProcessState, stderr string) *session.Failure {
	st.Sandbox = plan.Layer
	st.MemoryLimitMB, st.PidsLimit = plan.Limits.MemoryMaxMB, plan.Limits.PidsMax
	st.PeakMemoryMB, st.PeakSource = (u.peakBytes+(1<<20)-1)>>20, u.source
	st.PidsLimitHit = u.pidsHits > 0
	killed := false
	if ps != nil {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			killed = true
		}
	}
	limit := plan.Limits.MemoryMaxMB
	switch {
	case u.oomKills > 0:
		return &session.Failure{Class: session.FailOOM, Message: fmt.Sprintf(
			"killed by the kernel's OOM killer: memory limit %d MB, peak %d MB", limit, st.PeakMemoryMB)}
	case plan.Layer == resource.LayerSetrlimit && limit > 0 && ps != nil && ps.ExitCode() != 0 && outOfMemory(stderr):
		return &session.Failure{Class: session.FailOOM, Message: fmt.Sprintf(
			"ran out of memory under its address-space limit (RLIMIT_AS %d MB, peak %d MB)", limit, st.PeakMemoryMB)}
	case killed && limit > 0 && plan.Layer == resource.LayerSystemd && st.PeakMemoryMB*10 >= limit*9:
		// systemd's scope is gone with its counters: a SIGKILL at the
		// limit is the OOM killer's signature.
		return &session.Failure{Class: session.FailOOM, Message: fmt.Sprintf(
			"killed by SIGKILL at its memory limit (%d MB, peak %d MB): presumably the OOM killer", limit, st.PeakMemoryMB)}
	}
	return nil
}

// outOfMemory recognises a failed allocation in a program's last words
// (Go, glibc, node, Rust).
func outOfMemory(stderr string) bool {
	s := strings.ToLower(stderr)
	for _, p := range []string{"out of memory", "cannot allocate memory", "enomem", "allocation failed", "memory allocation of", "failed to reserve"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}
