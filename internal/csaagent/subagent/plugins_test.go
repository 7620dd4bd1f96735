package subagent

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/plugin"
)

// A plugin's agents are "plugin:[sub:]name", named by their file when the
// front matter does not; a user's agent of the same name wins over the
// plugin's, as in Claude Code (built-in, plugin, user, project, managed).
func TestPluginAgents(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	root := filepath.Join(t.TempDir(), "kit")
	write(t, filepath.Join(root, ".claude-plugin/plugin.json"), `{"name": "kit"}`)
	write(t, filepath.Join(root, "agents/reviewer.md"), def("reviewer", "Reviews.")+"Scripts in ${CLAUDE_PLUGIN_ROOT}/bin, project ${CLAUDE_PROJECT_DIR}.\n")
	write(t, filepath.Join(root, "agents/team/tester.md"), "---\nwhen_to_use: Tests.\n---\nYou test.\n")
	write(t, filepath.Join(root, "agents/bare.md"), "You have no front matter.\n")
	write(t, filepath.Join(root, "agents/loose.md"), "---\nname: loose\ndescription: Use it when asked. Examples:\n\n<example>\nuser: \"do it\"\n</example>\n---\nYou are loose.\n")
	write(t, filepath.Join(home, ".claude/agents/mine.md"), def("kit:reviewer", "The user's reviewer."))
	plugins, err := plugin.Enabled(plugin.Sources{Home: home, Dirs: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defs, err := Load(Sources{Home: home, ProjectRoot: proj, Plugins: plugins})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Definition{}
	var order []string
	for _, d := range defs {
		got[d.Name] = d
		order = append(order, d.Name)
	}
	if want := "general-purpose kit:bare kit:loose kit:reviewer kit:team:tester"; strings.Join(order, " ") != want {
		t.Errorf("names %q, want %q", strings.Join(order, " "), want)
	}
	if d := got["kit:reviewer"]; d.Description != "The user's reviewer." {
		t.Errorf("the user's agent does not win: %+v", d)
	}
	if d := got["kit:team:tester"]; d.Description != "Tests." {
		t.Errorf("tester: %+v", d)
	}
	if d := got["kit:bare"]; d.Description != "Agent from kit plugin" || d.Prompt != "You have no front matter." {
		t.Errorf("bare: %+v", d)
	}
	// A front matter that is not YAML is ignored, as Claude Code ignores it.
	if d := got["kit:loose"]; d.Description != "Agent from kit plugin" || d.Prompt != "You are loose." {
		t.Errorf("loose: %+v", d)
	}

	// Without the user's, the plugin's own, its root substituted; a
	// manifest's "agents" replaces agents/.
	write(t, filepath.Join(home, ".claude/agents/mine.md"), "# not an agent\n")
	defs, _ = Load(Sources{Home: home, ProjectRoot: proj, Plugins: plugins})
	for _, d := range defs {
		if d.Name == "kit:reviewer" && d.Prompt != "prompt of Reviews.\nScripts in "+root+"/bin, project "+proj+"." {
			t.Errorf("prompt %q", d.Prompt)
		}
	}
	write(t, filepath.Join(root, ".claude-plugin/plugin.json"), `{"name": "kit", "agents": ["./agents/team/tester.md"]}`)
	plugins, _ = plugin.Enabled(plugin.Sources{Home: home, Dirs: []string{root}})
	defs, _ = Load(Sources{Home: home, ProjectRoot: proj, Plugins: plugins})
	if len(defs) != 2 || defs[1].Name != "kit:tester" {
		t.Errorf("manifest agents: %v", defs)
	}
}
