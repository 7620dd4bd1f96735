// Package doctor implements `csa doctor`: what csa finds on this machine.
package doctor

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/proc"
)

// Tool is one tool's installation status.
type Tool struct {
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

// Report is the JSON answer of `csa doctor`.
type Report struct {
	Version     string                 `json:"version"`
	StateDir    string                 `json:"state_dir"`
	ProjectRoot string                 `json:"project_root"`
	ConfigFiles []cmdutil.ConfigSource `json:"config_files"`
	ConfigError string                 `json:"config_error,omitempty"`
	Tools       []Tool                 `json:"tools"`
}

// NewCmd builds the command; version is csa's own.
func NewCmd(f *cmdutil.Factory, version string) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Show installed tools, the state directory and the config files found",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			root, err := f.ProjectRoot(".")
			if err != nil {
				return err
			}
			r := Report{Version: version, StateDir: f.StateDir(), ProjectRoot: root}
			cfg := config.Default()
			if l, err := f.Config(root); err != nil {
				r.ConfigError = err.Error()
			} else {
				cfg, r.ConfigFiles = l.Config, cmdutil.ConfigSources(l)
			}
			r.Tools = probe(&cfg)
			if f.JSON {
				return f.IO.PrintJSON(r)
			}
			print(f, &r)
			return nil
		},
	}
}

// probe asks every installed tool for its version, in parallel and with a
// time limit, since some programs start slowly.
func probe(cfg *config.Config) []Tool {
	out := make([]Tool, len(agents.All))
	var wg sync.WaitGroup
	for i, t := range agents.All {
		a := agents.For(t)
		tc := cfg.Tool(string(t))
		out[i] = Tool{Name: string(t), Family: a.Family(), Program: tc.Path, Enabled: tc.Enabled}
		path, err := exec.LookPath(tc.Path)
		if err != nil {
			out[i].Error = "not found"
			out[i].Install = "npm install -g " + a.Package()
			continue
		}
		out[i].Path, _ = filepath.Abs(path)
		out[i].Installed = true
		wg.Add(1)
		go func(t *Tool) {
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

func print(f *cmdutil.Factory, r *Report) {
	w := f.IO.Out
	fmt.Fprintf(w, "csa %s\nstate directory: %s\nproject root:    %s\n", r.Version, r.StateDir, r.ProjectRoot)
	for _, s := range r.ConfigFiles {
		state := "not present"
		if s.Exists {
			state = "found"
		}
		fmt.Fprintf(w, "config (%s): %s (%s)\n", s.Scope, s.Path, state)
	}
	if r.ConfigError != "" {
		fmt.Fprintf(w, "config error: %s\n", r.ConfigError)
	}
	fmt.Fprintln(w, "tools:")
	for _, t := range r.Tools {
		switch {
		case t.Installed:
			fmt.Fprintf(w, "  %-12s installed  %s  %s\n", t.Name, t.Path, t.Version)
		default:
			fmt.Fprintf(w, "  %-12s missing    (%s not found; %s)\n", t.Name, t.Program, t.Install)
		}
	}
}
