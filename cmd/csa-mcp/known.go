package main

import (
	"os"
	"path/filepath"
)

// knownDir is where the hub keeps what lazy servers said at their last
// start: mcp-known in csa's state directory ($CSA_STATE_DIR, else
// $XDG_STATE_HOME/csa, else ~/.local/state/csa, as csa's own
// cmdutil.StateDir, which csa-mcp does not link).
func knownDir() string {
	state := os.Getenv("CSA_STATE_DIR")
	switch {
	case state != "":
	case os.Getenv("XDG_STATE_HOME") != "":
		state = filepath.Join(os.Getenv("XDG_STATE_HOME"), "csa")
	default:
		home, _ := os.UserHomeDir()
		state = filepath.Join(home, ".local", "state", "csa")
	}
	return filepath.Join(state, "mcp-known")
}
