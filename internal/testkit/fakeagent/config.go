package fakeagent

import (
	"fmt"
	"strings"

	"github.com/csa-dev/csa/internal/agents"
)

// EstimateMB is the memory one run of the stand-in is expected to need
// (its peak is under 20 MB; `alloc` scripts ask for more and set limits
// of their own). Tests give it to the pre-flight in place of the real
// tools' estimates (4 GB for codex), which would make a test of something
// else depend on how much memory the machine has free.
const EstimateMB = 64

// Resources is the [resources] of a csa config whose tools all run the
// stand-in: the pre-flight asks for the stand-in's need, and keeps no
// memory free on top of it.
func Resources() string {
	var b strings.Builder
	b.WriteString("[resources]\nmin_free_memory_mb = 0\n[resources.initial_estimates]\n")
	for _, t := range agents.All {
		fmt.Fprintf(&b, "%s = %d\n", t, EstimateMB)
	}
	return b.String()
}

// Config is a csa config that runs every tool as the stand-in at path,
// with the stand-in's memory needs (Resources).
func Config(path string) string {
	var b strings.Builder
	b.WriteString(Resources())
	for _, t := range agents.All {
		fmt.Fprintf(&b, "[tools.%s]\npath = %q\n", t, path)
	}
	return b.String()
}
