package cmdutil

import (
	"os"

	"github.com/csa-dev/csa/internal/config"
)

// ConfigSource is a config file in JSON answers.
type ConfigSource struct {
	Path   string `json:"path"`
	Scope  string `json:"scope"`
	Exists bool   `json:"exists"`
}

// ConfigSources lists the files a configuration was loaded from.
func ConfigSources(l *config.Loaded) []ConfigSource {
	out := make([]ConfigSource, len(l.Sources))
	for i, s := range l.Sources {
		out[i] = ConfigSource{s.Path, s.Scope, s.Exists}
	}
	return out
}

// HooksSources lists the hooks files of a project, found or not.
func HooksSources(root string) []ConfigSource {
	var out []ConfigSource
	for _, s := range []ConfigSource{{Path: config.HooksGlobalPath(), Scope: config.ScopeGlobal}, {Path: config.HooksProjectPath(root), Scope: config.ScopeProject}} {
		if s.Path == "" {
			continue
		}
		_, err := os.Stat(s.Path)
		s.Exists = err == nil
		out = append(out, s)
	}
	return out
}
