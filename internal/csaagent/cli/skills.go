package cli

import (
	"fmt"

	"github.com/csa-dev/csa/internal/csaagent/plugin"
	"github.com/csa-dev/csa/internal/csaagent/skills"
	"github.com/csa-dev/csa/internal/csaagent/tool"
	"github.com/csa-dev/csa/internal/csaagent/tools"
)

// withSkillTool offers the model-invocable skills through the Skill tool,
// whose loading of a skill allows its allowed-tools and uses its model for
// the rest of the turn; without any, the model is not shown the tool.
func (s *session) withSkillTool(all []tool.Tool) []tool.Tool {
	if !contains(names(all), "Skill") {
		return all // denied by --disallowedTools
	}
	offered := s.skills.ModelInvocable()
	if len(offered) > 0 {
		shell := func(sk skills.Skill) skills.Shell { return commandShell{s, sk.AllowedTools} }
		return tools.With(all, skills.NewTool(offered, s.id, s.skillLoaded).WithShell(shell))
	}
	var out []tool.Tool
	for _, t := range all {
		if t.Name() != "Skill" {
			out = append(out, t)
		}
	}
	return out
}

// loadPlugins finds the enabled plugins and the --plugin-dir ones, once
// for every feature that reads them; a plugin that cannot be read is
// named on stderr and left out.
func loadPlugins(o *options, sio IO, projectRoot string) []plugin.Plugin {
	plugins, err := plugin.Enabled(plugin.Sources{Home: sio.Getenv("HOME"), ProjectRoot: projectRoot, Dirs: o.pluginDirs})
	if err != nil {
		fmt.Fprintln(sio.Stderr, "csa-agent: plugins:", err)
	}
	return plugins
}
