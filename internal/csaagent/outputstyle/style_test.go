package outputstyle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/plugin"
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

func byName(styles []Style) map[string]Style {
	m := map[string]Style{}
	for _, s := range styles {
		m[s.Name] = s
	}
	return m
}

func TestLoadPrecedence(t *testing.T) {
	dir := t.TempDir()
	home, root := filepath.Join(dir, "home"), filepath.Join(dir, "repo")
	cwd := filepath.Join(root, "a", "b")
	managed := filepath.Join(dir, "managed")
	write(t, filepath.Join(home, ".claude/output-styles/Explanatory.md"), "user's own Explanatory")
	write(t, filepath.Join(home, ".claude/output-styles/shared.md"), "from home")
	write(t, filepath.Join(root, ".claude/output-styles/shared.md"), "from the root")
	write(t, filepath.Join(root, "a/.claude/output-styles/deep/shared.md"), "from a")
	write(t, filepath.Join(dir, ".claude/output-styles/above.md"), "above the root: not read")
	write(t, filepath.Join(managed, "policy.md"), "---\ndescription: the rules\n---\nfrom the organisation")
	write(t, filepath.Join(root, ".claude/output-styles/policy.md"), "loses to the organisation")
	write(t, filepath.Join(home, ".claude/output-styles/notyaml.md"), "---\ndescription: runs over lines\nContext: not YAML\n<example>\n---\nkept without its front matter")
	plug := filepath.Join(dir, "plug")
	write(t, filepath.Join(plug, "output-styles/voice.md"), "---\nkeep-coding-instructions: true\n---\n# Plugin voice\nbody")

	styles, err := Load(Sources{Managed: managed, Home: home, Cwd: cwd, ProjectRoot: root,
		Plugins: []plugin.Plugin{{ID: "p@m", Name: "p", Root: plug}}})
	if err == nil || !strings.Contains(err.Error(), "notyaml.md: front matter ignored") {
		t.Fatalf("error %v does not name the file whose front matter is not YAML", err)
	}
	got := byName(styles)
	if got["notyaml"].Prompt != "kept without its front matter" {
		t.Errorf("notyaml: %+v", got["notyaml"])
	}
	for name, want := range map[string]string{"Explanatory": "user's own Explanatory", "shared": "from a",
		"policy": "from the organisation", "p:voice": "# Plugin voice\nbody"} {
		if got[name].Prompt != want {
			t.Errorf("%s: prompt %q, want %q", name, got[name].Prompt, want)
		}
	}
	if _, ok := got["above"]; ok {
		t.Error("a style above the project root was read")
	}
	if styles[1].Name != "Explanatory" || styles[1].Source != User {
		t.Errorf("a replaced style moved or kept its source: %+v", styles[1])
	}
	if s := got["p:voice"]; !s.KeepCodingInstructions || s.Description != "Plugin voice" || s.Source != Plugin {
		t.Errorf("plugin style: %+v", s)
	}
	if s := got["policy"]; s.Description != "the rules" || s.KeepCodingInstructions {
		t.Errorf("policy style: %+v", s)
	}
}

func TestSelect(t *testing.T) {
	styles := append([]Style(nil), builtIns...)
	if _, ok := Select(styles, Default); ok {
		t.Error("default selected a style")
	}
	if _, ok := Select(styles, "Missing"); ok {
		t.Error("an unknown name selected a style")
	}
	if s, ok := Select(styles, "Learning"); !ok || s.Name != "Learning" {
		t.Errorf("Learning: %+v %v", s, ok)
	}
	forced := append(styles, Style{Name: "p:forced", Source: Plugin, ForceForPlugin: true})
	if s, ok := Select(forced, "Learning"); !ok || s.Name != "p:forced" {
		t.Errorf("a forced plugin style did not win: %+v", s)
	}
}
