package fakeagent_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/resource"
	"github.com/csa-dev/csa/internal/testkit/fakeagent"
)

// TestConfigNeedsOnlyTheStandIn: under the tests' config every tool, the
// stand-in, passes the pre-flight with only the stand-in's need available
// (issue 23: the real estimate of codex, 4 GB, refused it with 1.7 GB).
func TestConfigNeedsOnlyTheStandIn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(fakeagent.Config("/bin/fakeagent")), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := config.LoadFiles(path, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range agents.All {
		if got := l.Config.Tool(string(tool)).Path; got != "/bin/fakeagent" {
			t.Errorf("%s runs %q, not the stand-in", tool, got)
		}
		lim := l.Config.ToolLimits(string(tool))
		est := resource.EstimateFor(string(tool), nil, lim.InitialEstimates)
		if err := resource.Preflight(string(tool), lim.MinFreeMemoryMB, est, resource.MemInfo{AvailableMB: fakeagent.EstimateMB}); err != nil {
			t.Errorf("%s: %v", tool, err)
		}
	}
}
