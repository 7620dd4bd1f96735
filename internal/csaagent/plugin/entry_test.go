package plugin

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// installedFrom is a HOME where the plugins of a marketplace folder are
// installed and enabled as Claude Code records them, each at the folder
// its entry's source names.
func installedFrom(t *testing.T, market string, marketJSON string, names ...string) string {
	t.Helper()
	home := t.TempDir()
	write(t, filepath.Join(market, ".claude-plugin/marketplace.json"), marketJSON)
	write(t, filepath.Join(home, ".claude/plugins/known_marketplaces.json"),
		`{"mk": {"source": {"source": "directory", "path": "`+market+`"}, "installLocation": "`+market+`"}}`)
	var installed, enabled []string
	for _, n := range names {
		name, dir, _ := strings.Cut(n, "=")
		installed = append(installed, `"`+name+`@mk": [{"scope": "user", "installPath": "`+filepath.Join(market, dir)+`", "version": "1"}]`)
		enabled = append(enabled, `"`+name+`@mk": true`)
	}
	write(t, filepath.Join(home, ".claude/plugins/installed_plugins.json"), `{"version": 2, "plugins": {`+strings.Join(installed, ",")+`}}`)
	write(t, filepath.Join(home, ".claude/settings.json"), `{"enabledPlugins": {`+strings.Join(enabled, ",")+`}}`)
	return home
}

// A marketplace whose plugins are its own folder ("source": "./") and
// list their skills, as a published skills collection does: each plugin
// has only the skills its entry lists, not all of skills/.
func TestEntryListsTheSkillsOfARootPlugin(t *testing.T) {
	market := t.TempDir()
	for _, s := range []string{"pdf", "docx", "art"} {
		write(t, filepath.Join(market, "skills", s, "SKILL.md"), "---\ndescription: "+s+"\n---\n")
	}
	home := installedFrom(t, market, `{"name": "mk", "plugins": [
  {"name": "docs", "source": "./", "strict": false, "skills": ["./skills/pdf", "./skills/docx"]},
  {"name": "all", "source": ".", "strict": false, "skills": ["./skills"]}]}`, "docs=.", "all=.")
	ps, err := Enabled(Sources{Home: home})
	if err != nil || len(ps) != 2 {
		t.Fatalf("Enabled: %v %v", ps, err)
	}
	byName := map[string]Plugin{}
	for _, p := range ps {
		byName[p.Name] = p
	}
	got, err := byName["docs"].Skills()
	if want := []string{filepath.Join(market, "skills/pdf"), filepath.Join(market, "skills/docx")}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("docs' skills %v %v, want %v", got, err, want)
	}
	got, err = byName["all"].Skills()
	if want := []string{filepath.Join(market, "skills")}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("all's skills %v %v, want %v", got, err, want)
	}
}

// A plugin with a plugin.json: its entry's components are added (strict,
// the default); with strict false as well, the plugin is not loaded.
func TestEntryAddsToTheManifest(t *testing.T) {
	market := t.TempDir()
	write(t, filepath.Join(market, "plugins/kit/.claude-plugin/plugin.json"), `{"name": "kit"}`)
	write(t, filepath.Join(market, "plugins/kit/agents/a.md"), "a")
	write(t, filepath.Join(market, "plugins/kit/more/b.md"), "b")
	write(t, filepath.Join(market, "plugins/kit/hooks/hooks.json"), `{"hooks": {"Stop": []}}`)
	home := installedFrom(t, market, `{"name": "mk", "plugins": [
  {"name": "kit", "source": "./plugins/kit", "agents": ["./more/b.md"], "hooks": {"SessionStart": []}}]}`, "kit=plugins/kit")
	ps, err := Enabled(Sources{Home: home})
	if err != nil || len(ps) != 1 {
		t.Fatalf("Enabled: %v %v", ps, err)
	}
	root := filepath.Join(market, "plugins/kit")
	agents, err := ps[0].Agents()
	if want := []string{filepath.Join(root, "agents"), filepath.Join(root, "more/b.md")}; err != nil || !reflect.DeepEqual(agents, want) {
		t.Errorf("agents %v %v, want %v", agents, err, want)
	}
	hooks, err := ps[0].Hooks()
	if err != nil || len(hooks) != 2 || !strings.Contains(string(hooks[1].JSON), "SessionStart") {
		t.Errorf("hooks %+v %v", hooks, err)
	}

	home = installedFrom(t, market, `{"name": "mk", "plugins": [
  {"name": "kit", "source": "./plugins/kit", "strict": false, "agents": ["./more/b.md"]}]}`, "kit=plugins/kit")
	ps, err = Enabled(Sources{Home: home})
	if len(ps) != 0 || err == nil || !strings.Contains(err.Error(), "kit@mk") || !strings.Contains(err.Error(), "strict") {
		t.Errorf("a conflict: %v %v", ps, err)
	}
}

// Without a plugin.json the entry is the manifest: its name, its MCP
// servers and its components.
func TestEntryIsTheManifest(t *testing.T) {
	market := t.TempDir()
	write(t, filepath.Join(market, "tools/cmds/go.md"), "go")
	home := installedFrom(t, market, `{"name": "mk", "plugins": [
  {"name": "tools", "source": "./tools", "strict": false, "commands": "./cmds", "mcpServers": {"s": {"command": "x"}}}]}`, "tools=tools")
	ps, err := Enabled(Sources{Home: home})
	if err != nil || len(ps) != 1 {
		t.Fatalf("Enabled: %v %v", ps, err)
	}
	cmds, _, err := ps[0].Commands()
	if want := []string{filepath.Join(market, "tools/cmds")}; err != nil || !reflect.DeepEqual(cmds, want) {
		t.Errorf("commands %v %v, want %v", cmds, err, want)
	}
	servers, _, err := ps[0].MCPServers()
	if _, ok := servers["s"]; !ok || err != nil {
		t.Errorf("servers %v %v", servers, err)
	}
}

// A directory marketplace's plugin is read where the marketplace has it,
// not from its copy in the cache, as Claude Code reads it; one whose
// folder is gone is not loaded.
func TestLocalMarketplacePluginsReadInPlace(t *testing.T) {
	market := t.TempDir()
	write(t, filepath.Join(market, "plugins/kit/commands/a.md"), "a")
	home := installedFrom(t, market, `{"name": "mk", "plugins": [{"name": "kit", "source": "./plugins/kit"}]}`, "kit=cache-copy")
	ps, err := Enabled(Sources{Home: home})
	if err != nil || len(ps) != 1 || ps[0].Root != filepath.Join(market, "plugins/kit") {
		t.Fatalf("Enabled: %+v %v", ps, err)
	}
	write(t, filepath.Join(market, ".claude-plugin/marketplace.json"), `{"name": "mk", "plugins": [{"name": "kit", "source": "./plugins/gone"}]}`)
	ps, err = Enabled(Sources{Home: home})
	if len(ps) != 0 || err == nil || !strings.Contains(err.Error(), "plugins/gone") {
		t.Errorf("a gone folder: %+v %v", ps, err)
	}
}
