package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/loop"
	"github.com/csa-dev/csa/internal/csaagent/plugin"
)

// A plugin's hook runs with ${CLAUDE_PLUGIN_ROOT} substituted in its
// command and CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA in its
// environment; the manifest's inline hooks run too, after the settings'.
func TestPluginHooks(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	root := filepath.Join(t.TempDir(), "kit")
	write := func(path, content string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, ".claude-plugin/plugin.json"), `{"name": "kit", "hooks": {"PreToolUse": [{"matcher": "Bash",
		"hooks": [{"type": "command", "command": "echo inline >> \"$CLAUDE_PLUGIN_DATA/log\""}]}]}}`)
	write(filepath.Join(root, "hooks/hooks.json"), `{"description": "d", "hooks": {"PreToolUse": [{"matcher": "Bash",
		"hooks": [{"type": "command", "command": "echo \"${CLAUDE_PLUGIN_ROOT} $CLAUDE_PLUGIN_ROOT\" > ${CLAUDE_PROJECT_DIR}/out"}]}],
		"Elicitation": [{"hooks": [{"type": "command", "command": "not run"}]}]}}`)
	plugins, err := plugin.Enabled(plugin.Sources{Home: home, Dirs: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	fromPlugins, err := FromPlugins(plugins, proj)
	if err != nil {
		t.Fatal(err)
	}
	settings, err := Parse([]byte(`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "echo settings > \"$CLAUDE_PROJECT_DIR/first\""}]}]}}`), "test")
	if err != nil {
		t.Fatal(err)
	}
	all := Merge(settings, fromPlugins)
	if n := len(all[PreToolUse]); n != 3 || !strings.Contains(all[PreToolUse][0].Hooks[0].Command, "first") {
		t.Fatalf("merged %+v", all)
	}
	e, err := New(all, Options{SessionID: "s1", Cwd: proj, ProjectDir: proj, Environ: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	if v := e.BeforeTool(context.Background(), bashCall(t, "ls")); v.Decision == loop.Deny {
		t.Fatalf("verdict %+v", v)
	}
	out, err := os.ReadFile(filepath.Join(proj, "out"))
	if want := root + " " + root + "\n"; string(out) != want {
		t.Errorf("out %q (%v), want %q", out, err, want)
	}
	data := filepath.Join(home, ".claude/plugins/data/kit-inline")
	if log, err := os.ReadFile(filepath.Join(data, "log")); string(log) != "inline\n" {
		t.Errorf("log %q (%v)", log, err)
	}
	if first, err := os.ReadFile(filepath.Join(proj, "first")); string(first) != "settings\n" {
		t.Errorf("settings hook: %q (%v)", first, err)
	}
}
