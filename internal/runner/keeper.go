package runner

import (
	"path/filepath"
	"strings"

	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/keeper"
	"github.com/csa-dev/csa/internal/rundir"
)

// StartKeeper starts finding the keeper of a run supervised by csa at exe
// in an environment read through getenv: the user's keeper daemon, which
// is started if need be unless the supervisor is itself part of a run (the
// daemon would live on in that run's cgroup).
func StartKeeper(exe string, getenv func(string) string) *keeper.Keeper {
	c := keeper.Config{Exe: exe, StartDaemon: getenv(csaenv.SessionID) == ""}
	if dir, err := rundir.Dir(getenv("XDG_RUNTIME_DIR")); err == nil {
		c.Socket = filepath.Join(dir, keeper.SocketName)
	}
	return keeper.Start(c)
}

// getenvOf reads env as os.Getenv reads the process's.
func getenvOf(env []string) func(string) string {
	return func(key string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
				return v
			}
		}
		return ""
	}
}
