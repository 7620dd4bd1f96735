package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if c, err := Load(filepath.Join(dir, "missing.toml")); err != nil || c.Model != "" {
		t.Fatalf("a missing file is an empty config: %+v, %v", c, err)
	}
	p := filepath.Join(dir, "config.toml")
	os.WriteFile(p, []byte("model = \"anthropic/m\"\n[models.\"anthropic/m\"]\ncontext_window = 1000\n[models.m2]\ncompact_at = 0.5\n"), 0o600)
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.ModelSettings("anthropic/m", "m").ContextWindow != 1000 || c.ModelSettings("openai/m2", "m2").CompactAt != 0.5 {
		t.Fatalf("model settings %+v", c.Models)
	}
	os.WriteFile(p, []byte("modle = \"x\"\n"), 0o600)
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "unknown keys") || !strings.Contains(err.Error(), "modle") {
		t.Fatalf("a misspelt key: %v", err)
	}
	get := func(k string) string { return map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": ""}[k] }
	if got := Path(get); got != "/h/.config/csa-agent/config.toml" {
		t.Fatalf("Path = %s", got)
	}
}

func TestHooksInTOML(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(p, []byte(`
[[hooks.PreToolUse]]
matcher = "Bash"
  [[hooks.PreToolUse.hooks]]
  type = "command"
  command = "sh check.sh"
  timeout = 5
`), 0o644)
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	g := c.Hooks["PreToolUse"]
	if len(g) != 1 || g[0].Matcher != "Bash" || len(g[0].Hooks) != 1 || g[0].Hooks[0].Command != "sh check.sh" || g[0].Hooks[0].Timeout != 5 {
		t.Fatalf("hooks %+v", c.Hooks)
	}
}

func TestModelAliases(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(p, []byte(`
[model_aliases]
Sonnet = "openai/gpt-5.5"
[model_aliases.ollama]
haiku = "qwen3:4b"
OPUS = "qwen3:32b"
`), 0o644)
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	a := c.Aliases
	if a.Any["sonnet"] != "openai/gpt-5.5" || a.Provider["ollama"]["haiku"] != "qwen3:4b" || a.Provider["ollama"]["opus"] != "qwen3:32b" || len(a.Any) != 1 {
		t.Fatalf("aliases %+v", a)
	}
	for _, bad := range []string{"[model_aliases]\nsonnet = 4\n", "[model_aliases.openai]\nsonnet = [\"a\"]\n"} {
		os.WriteFile(p, []byte(bad), 0o644)
		if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "model_aliases.") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
