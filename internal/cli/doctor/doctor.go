// Package doctor implements `csa doctor`: what csa finds on this machine.
package doctor

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/resource"
	"github.com/csa-dev/csa/internal/toolcache"
)

// Report is the JSON answer of `csa doctor`.
type Report struct {
	Version     string                 `json:"version"`
	StateDir    string                 `json:"state_dir"`
	ProjectRoot string                 `json:"project_root"`
	ConfigFiles []cmdutil.ConfigSource `json:"config_files"`
	ConfigError string                 `json:"config_error,omitempty"`
	// ToolsConfig says what the tools were probed with when the
	// configuration does not load: "global", "project" or "defaults".
	ToolsConfig string                 `json:"tools_config,omitempty"`
	HooksFiles  []cmdutil.ConfigSource `json:"hooks_files"`
	HooksError  string                 `json:"hooks_error,omitempty"`
	Tools       []cmdutil.ToolStatus   `json:"tools"`
	Sandbox     *resource.Capabilities `json:"sandbox"`
}

// NewCmd builds the command; version is csa's own.
func NewCmd(f *cmdutil.Factory, version string) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Show installed tools, the state directory and the config files found",
		Long: `Show csa's version, state directory, project root, config files, sandbox
layers and tools. When the configuration does not load, the report says why,
probes the tools with the config file that does load on its own (else the
defaults), and csa doctor exits 2; as it does when a hooks.toml is malformed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := f.ProjectRoot(".")
			if err != nil {
				return err
			}
			r := Report{Version: version, StateDir: f.StateDir(), ProjectRoot: root}
			l, cfgErr := f.Config(root)
			var cfg config.Config
			if cfgErr != nil {
				r.ConfigError = cfgErr.Error()
				r.ConfigFiles = sources(root)
				cfg, r.ToolsConfig = usable(root)
			} else {
				cfg, r.ConfigFiles = l.Config, cmdutil.ConfigSources(l)
			}
			r.HooksFiles = cmdutil.HooksSources(root)
			_, hooksErr := f.Hooks(root)
			if hooksErr != nil {
				r.HooksError = hooksErr.Error()
			}
			r.Tools = cmdutil.ProbeTools(cmd.Context(), &cfg)
			r.Sandbox = f.ProbeAgain()
			if f.JSON {
				if err := f.IO.PrintJSON(r); err != nil {
					return err
				}
			} else {
				print(f, &r)
			}
			if err := errors.Join(cfgErr, hooksErr); err != nil {
				return &cmdutil.Error{Code: "config", Exit: cmdutil.ExitUsage, Err: err}
			}
			return nil
		},
	}
}

// sources lists the config files when they do not load together.
func sources(root string) []cmdutil.ConfigSource {
	var out []cmdutil.ConfigSource
	for _, s := range []cmdutil.ConfigSource{{Path: config.GlobalPath(), Scope: config.ScopeGlobal}, {Path: config.ProjectPath(root), Scope: config.ScopeProject}} {
		if s.Path == "" {
			continue
		}
		_, err := os.Stat(s.Path)
		s.Exists = err == nil
		out = append(out, s)
	}
	return out
}

// usable is the configuration to probe the tools with when the whole does
// not load: the one file that loads on its own, else the defaults.
func usable(root string) (config.Config, string) {
	g, gerr := config.LoadFiles(config.GlobalPath(), "")
	p, perr := config.LoadFiles("", config.ProjectPath(root))
	switch {
	case gerr == nil && perr != nil && found(g):
		return g.Config, config.ScopeGlobal
	case perr == nil && gerr != nil && found(p):
		return p.Config, config.ScopeProject
	}
	return config.Default(), "defaults"
}

func found(l *config.Loaded) bool {
	for _, s := range l.Sources {
		if s.Exists {
			return true
		}
	}
	return false
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
	for _, s := range r.HooksFiles {
		state := "not present"
		if s.Exists {
			state = "found"
		}
		fmt.Fprintf(w, "hooks (%s): %s (%s)\n", s.Scope, s.Path, state)
	}
	if r.HooksError != "" {
		fmt.Fprintf(w, "hooks error: %s\n", r.HooksError)
	}
	fmt.Fprintf(w, "sandbox: best layer %s\n", r.Sandbox.Best)
	for _, l := range r.Sandbox.Layers {
		mark := "no "
		if l.Available {
			mark = "yes"
		}
		fmt.Fprintf(w, "  %-10s %s  %s\n", l.Layer, mark, l.Reason)
	}
	switch r.ToolsConfig {
	case "":
		fmt.Fprintln(w, "tools:")
	case "defaults":
		fmt.Fprintln(w, "tools (probed with the defaults: the configuration does not load):")
	default:
		fmt.Fprintf(w, "tools (probed with the %s config file alone: the configuration does not load):\n", r.ToolsConfig)
	}
	for _, t := range r.Tools {
		switch {
		case t.Installed && t.BuiltWithCSA && t.Source == toolcache.FromCSA:
			fmt.Fprintf(w, "  %-12s installed  %s  %s (built with csa)\n", t.Name, t.Path, t.Version)
		case t.Installed && t.BuiltWithCSA:
			fmt.Fprintf(w, "  %-12s installed  %s  %s (from %s; built with csa)\n", t.Name, t.Path, t.Version, t.Source)
		case t.Installed:
			fmt.Fprintf(w, "  %-12s installed  %s  %s (from %s; csa pins %s)\n", t.Name, t.Path, t.Version, t.Source, t.Pinned)
		case t.BuiltWithCSA:
			fmt.Fprintf(w, "  %-12s missing    (%s, built with csa, not found beside csa nor on PATH; %s)\n", t.Name, t.Program, t.Install)
		default:
			fmt.Fprintf(w, "  %-12s missing    (%s not found on PATH nor in csa's cache; %s)\n", t.Name, t.Program, t.Install)
		}
	}
}
