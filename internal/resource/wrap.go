package resource

import "strconv"

// ShimCommand is the hidden csa command that joins a group and sets
// rlimits, then execs the program: the program's own code starts already
// confined.
const ShimCommand = "__exec"

// Wrap returns the program and argv that run prog under plan. csaExe is
// csa's own executable (for the shim); g is the run's group, if the layer
// has one; unit names a systemd scope.
func Wrap(plan Plan, c *Capabilities, g *Group, csaExe, unit, prog string, args []string) (string, []string) {
	lim := plan.Limits
	switch plan.Layer {
	case LayerSystemd:
		a := []string{"--user", "--scope", "--quiet", "--collect", "--unit=" + unit}
		if lim.MemoryMaxMB > 0 {
			a = append(a, "-p", "MemoryMax="+mb(lim.MemoryMaxMB))
		}
		if lim.MemorySwapMaxMB > 0 {
			a = append(a, "-p", "MemorySwapMax="+mb(lim.MemorySwapMaxMB))
		}
		if lim.PidsMax > 0 {
			a = append(a, "-p", "TasksMax="+strconv.FormatInt(lim.PidsMax, 10))
		}
		return c.SystemdRun, append(append(a, "--", prog), args...)
	case LayerCgroup1, LayerCgroup2:
		a := []string{ShimCommand}
		for _, p := range g.Procs {
			a = append(a, "--procs", p)
		}
		return csaExe, append(append(a, "--", prog), args...)
	case LayerSetrlimit:
		a := []string{ShimCommand}
		if lim.MemoryMaxMB > 0 {
			a = append(a, "--rlimit-as", mb(lim.MemoryMaxMB))
		}
		return csaExe, append(append(a, "--", prog), args...)
	}
	return prog, args
}
