package agents

import (
	"bytes"
	"os"
	"strconv"
	"strings"

	"github.com/csa-dev/csa/internal/proc"
)

// programMarkers recognise an agent program in a process's command line,
// including the node wrappers the npm packages install.
var programMarkers = []struct {
	tool    Tool
	markers []string
}{
	{ClaudeCode, []string{"@anthropic-ai/claude-code", "/claude", "claude"}},
	{Codex, []string{"@openai/codex", "/codex", "codex"}},
	{GeminiCLI, []string{"@google/gemini-cli", "/gemini", "gemini"}},
	{Opencode, []string{"opencode-ai", "/opencode", "opencode"}},
}

// DetectParent finds the tool csa was called from: CSA_TOOL when csa runs
// under csa, else the nearest ancestor process that is a known agent
// program. It returns "" when there is none.
func DetectParent(getenv func(string) string) (Tool, string) {
	if t, err := Parse(getenv("CSA_TOOL")); err == nil {
		return t, "CSA_TOOL"
	}
	pid := os.Getppid()
	for i := 0; i < 64 && pid > 1; i++ {
		if t := toolOfProcess(pid); t != "" {
			return t, "process " + strconv.Itoa(pid)
		}
		pid = parentOf(pid)
	}
	return "", ""
}

func toolOfProcess(pid int) Tool {
	comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	name := strings.TrimSpace(string(comm))
	for _, pm := range programMarkers {
		if name == pm.markers[len(pm.markers)-1] {
			return pm.tool
		}
	}
	if name != "node" && name != "bun" && !strings.HasPrefix(name, "MainThread") {
		return ""
	}
	cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	args := bytes.Split(cmd, []byte{0})
	if len(args) < 2 {
		return ""
	}
	script := string(args[1]) // node's script: the package's bin
	for _, pm := range programMarkers {
		for _, m := range pm.markers[:len(pm.markers)-1] {
			if strings.Contains(script, m) {
				return pm.tool
			}
		}
	}
	return ""
}

func parentOf(pid int) int {
	e, ok := proc.Stat(pid)
	if !ok {
		return 0
	}
	return e.PPID
}
