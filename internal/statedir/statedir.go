// Package statedir locates csa's state directory: where sessions, the
// scheduler's state and the MCP hub's log live. It is its own package so
// that programs beside csa (csa-mcp) find the same directory as csa.
package statedir

import (
	"os"
	"path/filepath"

	"github.com/csa-dev/csa/internal/csaenv"
)

// Dir is $CSA_STATE_DIR, else $XDG_STATE_HOME/csa, else
// ~/.local/state/csa (getenv reads the environment).
func Dir(getenv func(string) string) string {
	if d := getenv(csaenv.StateDir); d != "" {
		return d
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "csa")
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".local", "state", "csa")
}

// ScratchTrees is where a cluster worker checks out the working trees of
// the remote runs it takes, one directory per remote session id.
func ScratchTrees(getenv func(string) string) string {
	return filepath.Join(Dir(getenv), "cluster-trees")
}

// CallerProjects is where a cluster worker keeps a directory for each
// caller's project that is no directory on the worker: the project of
// the project-scoped MCP servers of that caller's remote runs.
func CallerProjects(getenv func(string) string) string {
	return filepath.Join(Dir(getenv), "cluster-projects")
}
