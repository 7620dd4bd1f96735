package devenv

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/resource"
)

// TestCSAConfigStartsWithTwoGBFree: the config the end-to-end tests and
// csa dev agent-env write runs each program named, with its model, and
// every one passes the pre-flight with 2 GB available (issue 23: the real
// estimates, 4 GB for codex, refused them on a machine short of memory).
func TestCSAConfigStartsWithTwoGBFree(t *testing.T) {
	paths := map[agents.Tool]string{}
	for _, s := range agents.Registry {
		paths[s.Tool] = "/opt/" + s.Program.Name
	}
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(CSAConfig(paths)), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := config.LoadFiles(path, "")
	if err != nil {
		t.Fatal(err)
	}
	for tool, want := range paths {
		tc := l.Config.Tool(string(tool))
		if tc.Path != want || tc.Model != Model(tool) {
			t.Errorf("%s: path %q model %q, want %q and %q", tool, tc.Path, tc.Model, want, Model(tool))
		}
		lim := l.Config.ToolLimits(string(tool))
		est := resource.EstimateFor(string(tool), nil, lim.InitialEstimates)
		if err := resource.Preflight(string(tool), lim.MinFreeMemoryMB, est, resource.MemInfo{AvailableMB: 2048}); err != nil {
			t.Errorf("%s: %v", tool, err)
		}
	}
}
