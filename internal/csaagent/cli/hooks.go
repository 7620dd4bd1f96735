package cli

import (
	"fmt"

	"github.com/csa-dev/csa/internal/csaagent/config"
	"github.com/csa-dev/csa/internal/csaagent/hooks"
)

// loadHooks gathers the hooks of every source, all of which run: Claude
// Code's settings files (the user's, the project's, its local one),
// csa-agent's config and --settings. csa gives csa-agent its classifier's
// hooks (SessionStart, UserPromptSubmit, Stop) in --settings.
func loadHooks(o *options, cfg *config.Config, cfgPath, home, project string) (hooks.Settings, error) {
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
	return hooks.Merge(all...), nil
}
