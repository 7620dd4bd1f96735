package devenv

import (
	"fmt"
	"strings"

	"github.com/csa-dev/csa/internal/agents"
)

// EstimateMB is the memory one run of a tool's program needs against the
// scripted model server, rounded up from the peaks csa recorded (2 cores,
// the pinned versions): codex 188 MB, claude 310, gemini 254, opencode
// 530-600 (1078 on its first start in a new HOME), csa-agent 11. The
// registry's estimates (4 GB for codex) are for real work.
var EstimateMB = map[agents.Tool]int64{
	agents.Codex: 256, agents.ClaudeCode: 512, agents.GeminiCLI: 512, agents.Opencode: 1024, agents.CSAAgent: 64,
}

// CSAConfig is a csa config that runs each tool of paths with the program
// there, asking it for the model a prepared HOME serves, and gives the
// pre-flight the program's need against the scripted model server
// (EstimateMB): with the real estimates an offline run, a test among
// them, would depend on how much memory the machine has free.
func CSAConfig(paths map[agents.Tool]string) string {
	var est, tools strings.Builder
	for _, s := range agents.Registry {
		path, ok := paths[s.Tool]
		if !ok {
			continue
		}
		fmt.Fprintf(&est, "%s = %d\n", s.Tool, EstimateMB[s.Tool])
		fmt.Fprintf(&tools, "[tools.%s]\npath = %q\n", s.Tool, path)
		if m := Model(s.Tool); m != "" {
			fmt.Fprintf(&tools, "model = %q\n", m)
		}
	}
	// No margin on top of the estimates: a test of something else must
	// not depend on how much memory the machine has free.
	return "[resources]\nmin_free_memory_mb = 0\n\n[resources.initial_estimates]\n" + est.String() + tools.String()
}
