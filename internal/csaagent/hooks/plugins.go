package hooks

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/csa-dev/csa/internal/csaagent/plugin"
)

// FromPlugins reads the hooks of plugins (hooks/hooks.json and the
// manifest's), to be merged after the settings' as Claude Code registers
// them: ${CLAUDE_PLUGIN_ROOT}, ${CLAUDE_PLUGIN_DATA} and
// ${CLAUDE_PROJECT_DIR} are substituted in each command, whose
// environment gets CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA. Events and
// hook types csa-agent lacks are left out, as in settings files; a broken
// file is named in the error and left out.
func FromPlugins(plugins []plugin.Plugin, projectDir string) (Settings, error) {
	var all []Settings
	var errs []error
	for _, p := range plugins {
		docs, err := p.Hooks()
		errs = append(errs, err)
		for _, d := range docs {
			var s Settings
			if err := json.Unmarshal(d.JSON, &s); err != nil {
				errs = append(errs, fmt.Errorf("plugin %s: %s: %w", p.Name, d.Where, err))
				continue
			}
			s = s.runnable()
			if err := s.Check(); err != nil {
				errs = append(errs, fmt.Errorf("plugin %s: %s: %w", p.Name, d.Where, err))
				continue
			}
			for _, groups := range s {
				for _, g := range groups {
					for i, c := range g.Hooks {
						c.Command, c.Env = p.Expand(c.Command, projectDir), p.Env()
						g.Hooks[i] = c
					}
				}
			}
			all = append(all, s)
		}
	}
	return Merge(all...), errors.Join(errs...)
}
