package config

import (
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/resource"
)

func TestToolLimitsOverride(t *testing.T) {
	l := mustLoad(t, `
[resources]
memory_max_mb = 2048
pids_max = 100
[tools.codex.resources]
memory_max_mb = 3072
enforcement_mode = "Required"
`, "")
	codex, claude := l.Config.ToolLimits("codex"), l.Config.ToolLimits("claude-code")
	if codex.MemoryMaxMB != 3072 || codex.EnforcementMode != resource.Required || codex.PidsMax != 100 {
		t.Errorf("codex limits: %+v", codex)
	}
	if claude.MemoryMaxMB != 2048 || claude.EnforcementMode != resource.BestEffort || claude.Sandbox != resource.Auto {
		t.Errorf("claude-code limits: %+v", claude)
	}
	if claude.InitialEstimates["codex"] != 4096 || claude.InitialEstimates["gemini-cli"] != 1024 {
		t.Errorf("initial estimates: %v", claude.InitialEstimates)
	}
}

func TestResourcesValidation(t *testing.T) {
	for _, tt := range []struct{ doc, want string }{
		{"[resources]\nenforcement_mode = \"Sometimes\"", `invalid value for "resources.enforcement_mode": "Sometimes" is not one of Required, BestEffort, Off`},
		{"[resources]\nsandbox = \"docker\"", `"resources.sandbox": "docker" is not one of auto`},
		{"[resources]\nmemory_max_mb = -1", `"resources.memory_max_mb": -1 cannot be negative`},
		{"[resources.initial_estimates]\nfoo = 1", `unknown tool "foo"`},
		{"[tools.codex]\nmax_concurrent = -2", `"tools.codex.max_concurrent": -2 cannot be negative`},
		{"[tools.codex.resources]\nenforcement_mode = \"x\"", `"tools.codex.resources.enforcement_mode": "x" is not one of`},
		{"[tools.codex.resources]\npids_max = \"many\"", `wrong type for "tools.codex.resources.pids_max"`},
	} {
		g, p := files(t, tt.doc, "")
		_, err := LoadFiles(g, p)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want %q", tt.doc, err, tt.want)
		}
	}
}
