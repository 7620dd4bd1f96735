package cmdutil

import "github.com/csa-dev/csa/internal/config"

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
