package agents

import (
	"bytes"
	"os"
	"strconv"
	"strings"

	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/proc"
)

// DetectParent finds the tool csa was called from: CSA_TOOL when csa runs
// under csa, else the nearest ancestor process that is a known agent
// program. It returns "" when there is none.
func DetectParent(getenv func(string) string) (Tool, string) {
	if t, err := Parse(getenv(csaenv.Tool)); err == nil {
		return t, csaenv.Tool
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

// toolOfProcess recognises a tool's program by its command name, or a
// node or bun process running the program's npm package.
func toolOfProcess(pid int) Tool {
	comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	name := strings.TrimSpace(string(comm))
	for _, s := range Registry {
		if name == s.Program.Name {
			return s.Tool
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
	for _, s := range Registry {
		if s.Program.BuiltWithCSA() {
			continue // a Go program: its own command name, seen above
		}
		if strings.Contains(script, s.Program.Package) || strings.Contains(script, "/"+s.Program.Name) {
			return s.Tool
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
