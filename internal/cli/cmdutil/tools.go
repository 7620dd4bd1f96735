package cmdutil

import (
	"context"
	"sync"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/toolcache"
)

// ToolStatus is one tool as `csa tools` and `csa doctor` report it.
type ToolStatus struct {
	Name    string `json:"name"`
	Family  string `json:"family"`
	Program string `json:"program"`
	Path    string `json:"path"`
	// Source is where the program was found: config (a configured path),
	// PATH, cache (csa's cache of pinned programs), or "built with csa"
	// (beside csa's own executable).
	Source    string `json:"source,omitempty"`
	Installed bool   `json:"installed"`
	Enabled   bool   `json:"enabled"`
	Version   string `json:"version"`
	// Pinned is the version `csa tools install` installs; "" for a
	// program built with csa.
	Pinned string `json:"pinned"`
	// BuiltWithCSA: the program is built and installed with csa (make
	// build, make install), not an npm package.
	BuiltWithCSA bool   `json:"built_with_csa,omitempty"`
	Error        string `json:"error,omitempty"`
	Install      string `json:"install,omitempty"`
}

// InstallHint is how to install a tool's program.
func InstallHint(t agents.Tool) string {
	s, _ := agents.Lookup(string(t))
	return toolcache.InstallHint(t, s.Program)
}

// ProbeTools finds every tool's program and the installed ones' version
// (toolcache.Version), in parallel: what csa tools and csa doctor report.
func ProbeTools(ctx context.Context, cfg *config.Config) []ToolStatus {
	out := make([]ToolStatus, len(agents.Registry))
	var wg sync.WaitGroup
	for i, s := range agents.Registry {
		tc := cfg.Tool(string(s.Tool))
		out[i] = ToolStatus{Name: string(s.Tool), Family: agents.FamilyOf(s.Tool, tc.Model), Program: tc.Path, Enabled: tc.Enabled, BuiltWithCSA: s.Program.BuiltWithCSA()}
		out[i].Pinned, _ = toolcache.Pinned(s.Program)
		loc, err := toolcache.Locate(tc.Path, s.Program)
		if err != nil {
			out[i].Error = "not found"
			out[i].Install = InstallHint(s.Tool)
			continue
		}
		out[i].Path, out[i].Source, out[i].Installed = loc.Path, loc.Source, true
		wg.Add(1)
		go func(t *ToolStatus, p agents.Program) {
			defer wg.Done()
			var err error
			if t.Version, err = toolcache.Version(ctx, t.Path, p); err != nil {
				t.Error = "--version failed: " + err.Error()
			}
		}(&out[i], s.Program)
	}
	wg.Wait()
	return out
}
