// Package devenv prepares a HOME in which the real agent programs run
// offline, headless and against the scripted model server (csa dev
// agent-env, the end-to-end tests, the benchmarks and the demo).
package devenv

import (
	"fmt"

	"github.com/csa-dev/csa/internal/agents"
)

// setups prepares the HOME for each tool's program; its ACP agent reads
// the same settings.
var setups = map[agents.Tool]func(home, url string, o Options, env map[string]string) error{
	agents.ClaudeCode: prepareClaude,
	agents.Codex:      prepareCodex,
	agents.GeminiCLI:  prepareGemini,
	agents.Opencode:   prepareOpenCode,
	agents.CSAAgent:   prepareCSAAgent,
}

// toolOf finds the tool a program (its own or its ACP agent) belongs to.
func toolOf(program string) (agents.Tool, error) {
	for _, s := range agents.Registry {
		if s.Program.Name == program || (s.ACP != nil && s.ACP.Name == program) {
			return s.Tool, nil
		}
	}
	return "", fmt.Errorf("unknown agent program %q", program)
}

// ProgramNames lists every program csa knows, tools' and ACP agents'.
func ProgramNames() []string {
	var out []string
	for _, p := range agents.Programs() {
		out = append(out, p.Name)
	}
	return out
}
