package runner

import (
	"fmt"
	"slices"
	"strings"
)

// RemoteFlags are the flags of `csa run` a remote run carries to the
// local run its worker starts (`csa run -d` there), as name=value: the
// limits, the file confinement and the idle timeout apply on the machine
// that runs the agent.
var RemoteFlags = []string{"memory-max-mb", "memory-swap-max-mb", "pids-max", "enforcement", "sandbox", "no-preflight", "idle-timeout", "isolate"}

// CheckRemoteFlag checks one name=value of a remote run's flags (a
// worker takes nothing else from a request into its command line).
func CheckRemoteFlag(nv string) error {
	name, _, ok := strings.Cut(nv, "=")
	if !ok || !slices.Contains(RemoteFlags, name) {
		return fmt.Errorf("%q is not a flag a remote run carries (%s)", nv, strings.Join(RemoteFlags, ", "))
	}
	return nil
}
