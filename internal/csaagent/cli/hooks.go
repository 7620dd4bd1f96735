package cli

import (
	"fmt"

	"github.com/csa-dev/csa/internal/csaagent/config"
	"github.com/csa-dev/csa/internal/csaagent/hooks"
	"github.com/csa-dev/csa/internal/csaagent/plugin"
)

// loadHooks gathers the hooks of every source, all of which run: Claude
// Code's settings files (the user's, the project's, its local one),
// csa-agent's config, --settings, then the plugins'. csa gives csa-agent its classifier's
// hooks (SessionStart, UserPromptSubmit, Stop) in --settings.
func loadHooks(o *options, cfg *config.Config, cfgPath, home, project string, plugins []plugin.Plugin, sio IO) (hooks.Settings, error) {
	var all []hooks.Settings
	for _, f := range hooks.SettingsFiles(home, project) {
		s, err := hooks.ReadFile(f)
		if err != nil {
			return nil, err
		}
		all = append(all, s)
	}
	if err := cfg.Hooks.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", cfgPath, err)
	}
	all = append(all, cfg.Hooks)
	if o.settings != "" {
		s, err := hooks.ReadFlag(o.settings)
		if err != nil {
			return nil, err
		}
		all = append(all, s)
	}
	// Plugins' hooks come after the settings', as Claude Code registers
	// them; a broken one is only a warning.
	fromPlugins, err := hooks.FromPlugins(plugins, project)
	if err != nil {
		fmt.Fprintln(sio.Stderr, "csa-agent: plugin hooks:", err)
	}
	return hooks.Merge(append(all, fromPlugins)...), nil
}
