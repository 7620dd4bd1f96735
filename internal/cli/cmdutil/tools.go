package cmdutil

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/proc"
)

// ToolStatus is one tool as `csa tools` and `csa doctor` report it.
type ToolStatus struct {
	Name      string `json:"name"`
	Family    string `json:"family"`
	Program   string `json:"program"`
	Path      string `json:"path"`
	Installed bool   `json:"installed"`
	Enabled   bool   `json:"enabled"`
	Version   string `json:"version"`
	Error     string `json:"error,omitempty"`
	Install   string `json:"install,omitempty"`
}

// ProbeTools finds every tool's program and asks the installed ones for
// their version, in parallel and with a time limit (some start slowly).
func ProbeTools(cfg *config.Config) []ToolStatus {
	out := make([]ToolStatus, len(agents.All))
	var wg sync.WaitGroup
	for i, t := range agents.All {
		a := agents.For(t)
		tc := cfg.Tool(string(t))
		fam := a.Family()
		if fam == "" {
			fam = agents.FamilyOfModel(tc.Model)
		}
		out[i] = ToolStatus{Name: string(t), Family: fam, Program: tc.Path, Enabled: tc.Enabled}
		path, err := exec.LookPath(tc.Path)
		if err != nil {
			out[i].Error = "not found"
			out[i].Install = "npm install -g " + a.Package()
			continue
		}
		out[i].Path, _ = filepath.Abs(path)
		out[i].Installed = true
		wg.Add(1)
		go func(t *ToolStatus) {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			b, err := proc.Output(ctx, t.Path, "--version")
			if err != nil {
				t.Error = "--version failed: " + err.Error()
			}
			t.Version = firstLine(string(b))
		}(&out[i])
	}
	wg.Wait()
	return out
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
