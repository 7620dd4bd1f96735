// Package doctor implements `csa doctor`: what csa finds on this machine.
package doctor

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/resource"
)

// Report is the JSON answer of `csa doctor`.
type Report struct {
	Version     string                 `json:"version"`
	StateDir    string                 `json:"state_dir"`
	ProjectRoot string                 `json:"project_root"`
	ConfigFiles []cmdutil.ConfigSource `json:"config_files"`
	ConfigError string                 `json:"config_error,omitempty"`
	Tools       []cmdutil.ToolStatus   `json:"tools"`
	Sandbox     *resource.Capabilities `json:"sandbox"`
}

// NewCmd builds the command; version is csa's own.
func NewCmd(f *cmdutil.Factory, version string) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Show installed tools, the state directory and the config files found",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
			r.Tools = cmdutil.ProbeTools(cmd.Context(), &cfg)
			r.Sandbox = f.ProbeAgain()
			if f.JSON {
				return f.IO.PrintJSON(r)
			}
			print(f, &r)
			return nil
		},
	}
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
	fmt.Fprintf(w, "sandbox: best layer %s\n", r.Sandbox.Best)
	for _, l := range r.Sandbox.Layers {
		mark := "no "
		if l.Available {
			mark = "yes"
		}
		fmt.Fprintf(w, "  %-10s %s  %s\n", l.Layer, mark, l.Reason)
	}
	fmt.Fprintln(w, "tools:")
	for _, t := range r.Tools {
		switch {
		case t.Installed:
			fmt.Fprintf(w, "  %-12s installed  %s  %s (from %s; csa pins %s)\n", t.Name, t.Path, t.Version, t.Source, t.Pinned)
		default:
			fmt.Fprintf(w, "  %-12s missing    (%s not found on PATH nor in csa's cache; %s)\n", t.Name, t.Program, t.Install)
		}
	}
}
