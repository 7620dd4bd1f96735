package main

import (
	"os"
	"path/filepath"

	"github.com/csa-dev/csa/internal/statedir"
)

// knownDir is where the hub keeps what lazy servers said at their last
// start: mcp-known in csa's state directory.
func knownDir() string { return filepath.Join(statedir.Dir(os.Getenv), "mcp-known") }
