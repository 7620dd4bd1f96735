package plugin

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// dirPlugin is the plugin of a --plugin-dir folder holding files.
func dirPlugin(t *testing.T, files map[string]string) (Plugin, string) {
	t.Helper()
	home := t.TempDir()
	root := filepath.Join(t.TempDir(), "folder")
	for name, content := range files {
		write(t, filepath.Join(root, name), content)
	}
	ps, err := Enabled(Sources{Home: home, Dirs: []string{root}})
	if err != nil || len(ps) != 1 {
		t.Fatalf("Enabled: %v %v", ps, err)
	}
	return ps[0], home
}

func TestDefaultFolders(t *testing.T) {
	p, home := dirPlugin(t, map[string]string{
		"commands/a.md": "a", "agents/x.md": "x", "skills/s/SKILL.md": "s", "output-styles/o.md": "o",
	})
	if p.Name != "folder" || p.ID != "folder@inline" {
		t.Errorf("named %q, id %q", p.Name, p.ID)
	}
	if want := filepath.Join(home, ".claude/plugins/data/folder-inline"); p.Data != want {
		t.Errorf("data %q, want %q", p.Data, want)
	}
	check := func(what string, got []string, err error, want ...string) {
		t.Helper()
		for i := range want {
			want[i] = filepath.Join(p.Root, want[i])
		}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v %v, want %v", what, got, err, want)
		}
	}
	cmds, meta, err := p.Commands()
	check("commands", cmds, err, "commands")
	if meta != nil {
		t.Errorf("meta %v", meta)
	}
	agents, err := p.Agents()
	check("agents", agents, err, "agents")
	skills, err := p.Skills()
	check("skills", skills, err, "skills")
	styles, err := p.OutputStyles()
	check("output styles", styles, err, "output-styles")
}

// The manifest's commands, agents and output styles replace the folders;
// its skills add to skills/; a path leaving the plugin is refused.
func TestManifestPaths(t *testing.T) {
	p, _ := dirPlugin(t, map[string]string{
		ManifestPath: `{"name": "kit", "commands": ["./extra/one.md", "more"], "agents": "./team",
			"skills": ["./skills", "./bonus"], "outputStyles": ["../outside"]}`,
		"commands/a.md": "a", "extra/one.md": "one", "more/b.md": "b",
		"agents/x.md": "x", "team/y.md": "y",
		"skills/s/SKILL.md": "s", "bonus/SKILL.md": "b",
		"output-styles/o.md": "o",
	})
	if p.Name != "kit" || p.ID != "kit@inline" {
		t.Errorf("named %q, id %q", p.Name, p.ID)
	}
	rel := func(list []string) string {
		var out []string
		for _, f := range list {
			r, _ := filepath.Rel(p.Root, f)
			out = append(out, r)
		}
		return strings.Join(out, " ")
	}
	cmds, _, err := p.Commands()
	if rel(cmds) != "extra/one.md more" || err != nil {
		t.Errorf("commands %q %v", rel(cmds), err)
	}
	agents, err := p.Agents()
	if rel(agents) != "team" || err != nil {
		t.Errorf("agents %q %v", rel(agents), err)
	}
	skills, err := p.Skills()
	if rel(skills) != "skills bonus" || err != nil {
		t.Errorf("skills %q %v", rel(skills), err)
	}
	styles, err := p.OutputStyles()
	if len(styles) != 0 || err == nil || !strings.Contains(err.Error(), "leaves the plugin's folder") {
		t.Errorf("output styles %v %v", styles, err)
	}
}

func TestCommandsObjectForm(t *testing.T) {
	p, _ := dirPlugin(t, map[string]string{
		ManifestPath:    `{"commands": {"hello": {"source": "./c/greet.md", "description": "Says hello"}, "gone": {"source": "./c/none.md"}}}`,
		"c/greet.md":    "Hello",
		"commands/x.md": "x",
	})
	cmds, meta, err := p.Commands()
	full := filepath.Join(p.Root, "c/greet.md")
	if !reflect.DeepEqual(cmds, []string{full}) || meta[full].Name != "hello" || meta[full].Description != "Says hello" {
		t.Errorf("commands %v meta %v", cmds, meta)
	}
	if err == nil || !strings.Contains(err.Error(), "none.md") {
		t.Errorf("the missing source is not reported: %v", err)
	}
}

// A root holding SKILL.md and no skills/ is a skill itself.
func TestRootSkill(t *testing.T) {
	p, _ := dirPlugin(t, map[string]string{"SKILL.md": "---\ndescription: d\n---\nbody"})
	skills, err := p.Skills()
	if !reflect.DeepEqual(skills, []string{p.Root}) || err != nil {
		t.Errorf("skills %v %v", skills, err)
	}
}

func TestHooks(t *testing.T) {
	p, _ := dirPlugin(t, map[string]string{
		ManifestPath:       `{"hooks": ["./more.json", "./hooks/hooks.json", {"Stop": [{"hooks": []}]}]}`,
		"hooks/hooks.json": `{"description": "std", "hooks": {"PreToolUse": []}}`,
		"more.json":        `{"hooks": {"PostToolUse": []}}`,
	})
	docs, err := p.Hooks()
	var got []string
	for _, d := range docs {
		got = append(got, string(d.JSON))
	}
	want := []string{`{"PreToolUse": []}`, `{"PostToolUse": []}`, `{"Stop": [{"hooks": []}]}`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("hooks %q, want %q", got, want)
	}
	if err == nil || !strings.Contains(err.Error(), "loaded already") {
		t.Errorf("hooks/hooks.json named again is not reported: %v", err)
	}
}

func TestMCPServers(t *testing.T) {
	p, _ := dirPlugin(t, map[string]string{
		ManifestPath:   `{"mcpServers": ["./servers.json", {"inline": {"command": "i"}}, "./x.mcpb"]}`,
		".mcp.json":    `{"mcpServers": {"a": {"command": "root-a"}, "b": {"command": "root-b"}}}`,
		"servers.json": `{"b": {"command": "file-b"}}`,
	})
	servers, where, err := p.MCPServers()
	got := map[string]string{}
	for name, raw := range servers {
		got[name] = string(raw)
	}
	want := map[string]string{"a": `{"command": "root-a"}`, "b": `{"command": "file-b"}`, "inline": `{"command": "i"}`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("servers %v, want %v", got, want)
	}
	if where["b"] != filepath.Join(p.Root, "servers.json") {
		t.Errorf("b from %q", where["b"])
	}
	if err == nil || !strings.Contains(err.Error(), "bundles are not supported") {
		t.Errorf("the bundle is not reported: %v", err)
	}
}

func TestExpandAndEnv(t *testing.T) {
	p, _ := dirPlugin(t, nil)
	got := p.Expand("${CLAUDE_PLUGIN_ROOT}/run ${CLAUDE_PROJECT_DIR} ${CLAUDE_PLUGIN_DATA} ${OTHER}", "/proj")
	if want := p.Root + "/run /proj " + p.Data + " ${OTHER}"; got != want {
		t.Errorf("Expand: %q, want %q", got, want)
	}
	if st, err := os.Stat(p.Data); err != nil || !st.IsDir() {
		t.Errorf("the data folder is not made: %v", err)
	}
	if env := p.Env(); !reflect.DeepEqual(env, []string{"CLAUDE_PLUGIN_ROOT=" + p.Root, "CLAUDE_PLUGIN_DATA=" + p.Data}) {
		t.Errorf("Env: %v", env)
	}
}

// An installed plugin takes its manifest's name; its data folder is named
// by its id.
func TestInstalledManifest(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, ".claude/plugins/cache/mkt/tools/1.0")
	write(t, filepath.Join(root, ManifestPath), `{"name": "toolkit"}`)
	write(t, filepath.Join(home, ".claude/plugins/installed_plugins.json"),
		`{"version": 2, "plugins": {"tools@mkt": [{"scope": "user", "installPath": "`+root+`"}]}}`)
	write(t, filepath.Join(home, ".claude/settings.json"), `{"enabledPlugins": {"tools@mkt": true}}`)
	ps, err := Enabled(Sources{Home: home})
	if err != nil || len(ps) != 1 {
		t.Fatalf("Enabled: %v %v", ps, err)
	}
	if p := ps[0]; p.Name != "toolkit" || p.ID != "tools@mkt" || p.Data != filepath.Join(home, ".claude/plugins/data/tools-mkt") {
		t.Errorf("plugin %+v", p)
	}
}
