package devenv

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

func envMap(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPrepareAll(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	work := "/some/project"
	env, err := Prepare(home, "http://127.0.0.1:4567/", Options{Retries: 2, Trusted: []string{work}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSorted(env) {
		t.Error("env is not sorted")
	}
	e := envMap(env)
	want := map[string]string{
		"HOME":                             home,
		"TMPDIR":                           filepath.Join(home, "tmp"),
		"XDG_CONFIG_HOME":                  filepath.Join(home, ".config"),
		"ANTHROPIC_BASE_URL":               "http://127.0.0.1:4567",
		"ANTHROPIC_API_KEY":                DefaultAPIKey,
		"CLAUDE_CODE_MAX_RETRIES":          "2",
		"CODEX_HOME":                       filepath.Join(home, ".codex"),
		codexKeyVar:                        DefaultAPIKey,
		"GEMINI_API_KEY":                   DefaultAPIKey,
		"GOOGLE_GEMINI_BASE_URL":           "http://127.0.0.1:4567",
		"OPENAI_BASE_URL":                  "http://127.0.0.1:4567/v1",
		"OPENAI_API_KEY":                   DefaultAPIKey,
		"GEMINI_CLI_TRUST_WORKSPACE":       "true",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
	}
	for k, v := range want {
		if e[k] != v {
			t.Errorf("%s = %q, want %q", k, e[k], v)
		}
	}
	if (os.Geteuid() == 0) != (e["IS_SANDBOX"] == "1") {
		t.Errorf("IS_SANDBOX = %q as uid %d", e["IS_SANDBOX"], os.Geteuid())
	}
	if strings.HasPrefix(e["CODEX_HOME"], e["TMPDIR"]) {
		t.Error("CODEX_HOME lies under TMPDIR")
	}

	claude := readJSON(t, filepath.Join(home, ".claude.json"))
	if claude["hasCompletedOnboarding"] != true {
		t.Errorf(".claude.json %v", claude)
	}
	approved := claude["customApiKeyResponses"].(map[string]any)["approved"].([]any)
	if approved[0] != DefaultAPIKey[len(DefaultAPIKey)-20:] {
		t.Errorf("approved keys %v", approved)
	}
	if claude["projects"].(map[string]any)[work].(map[string]any)["hasTrustDialogAccepted"] != true {
		t.Errorf("projects %v", claude["projects"])
	}
	if s := readJSON(t, filepath.Join(home, ".claude", "settings.json")); s["skipDangerousModePermissionPrompt"] != true {
		t.Errorf("claude settings %v", s)
	}

	var codex struct {
		Model          string `toml:"model"`
		ModelProvider  string `toml:"model_provider"`
		ModelProviders map[string]struct {
			BaseURL           string `toml:"base_url"`
			EnvKey            string `toml:"env_key"`
			WireAPI           string `toml:"wire_api"`
			RequestMaxRetries int    `toml:"request_max_retries"`
			StreamMaxRetries  int    `toml:"stream_max_retries"`
		} `toml:"model_providers"`
		Analytics struct{ Enabled bool } `toml:"analytics"`
		Features  map[string]bool        `toml:"features"`
		Projects  map[string]struct {
			TrustLevel string `toml:"trust_level"`
		} `toml:"projects"`
	}
	data, err := os.ReadFile(filepath.Join(home, ".codex", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := toml.Unmarshal(data, &codex); err != nil {
		t.Fatal(err)
	}
	p := codex.ModelProviders[codex.ModelProvider]
	if p.BaseURL != "http://127.0.0.1:4567/v1" || p.EnvKey != codexKeyVar || p.WireAPI != "responses" ||
		p.RequestMaxRetries != 2 || p.StreamMaxRetries != 2 {
		t.Errorf("codex provider %+v in\n%s", p, data)
	}
	if codex.Features["daemon_auto_start"] || codex.Projects[work].TrustLevel != "trusted" {
		t.Errorf("codex config\n%s", data)
	}

	gemini := readJSON(t, filepath.Join(home, ".gemini", "settings.json"))
	if get(gemini, "security", "auth", "selectedType") != "gemini-api-key" || get(gemini, "general", "maxAttempts") != 3.0 {
		t.Errorf("gemini settings %v", gemini)
	}

	oc := readJSON(t, filepath.Join(home, ".config", "opencode", "opencode.json"))
	if get(oc, "provider", "csa", "options", "baseURL") != "http://127.0.0.1:4567/v1" || oc["model"] != OpenCodeModel {
		t.Errorf("opencode config %v", oc)
	}
}

func TestPrepareOne(t *testing.T) {
	home := t.TempDir()
	env, err := Prepare(home, "http://127.0.0.1:1", Options{Programs: []string{"codex-acp"}})
	if err != nil {
		t.Fatal(err)
	}
	e := envMap(env)
	if e["CODEX_HOME"] == "" || e["ANTHROPIC_BASE_URL"] != "" || e["GEMINI_API_KEY"] != "" {
		t.Errorf("env %v", env)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".claude.json written for codex-acp only: %v", err)
	}
}

// TestPrepareCSAAgent: csa-agent takes every provider's key and base URL
// from the environment, all pointing at the model server; its config
// names its model and bounds its retries.
func TestPrepareCSAAgent(t *testing.T) {
	home := t.TempDir()
	env, err := Prepare(home, "http://127.0.0.1:9/", Options{Programs: []string{"csa-agent"}, Retries: 2})
	if err != nil {
		t.Fatal(err)
	}
	e := envMap(env)
	want := map[string]string{
		"ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "ANTHROPIC_API_KEY": DefaultAPIKey,
		"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": DefaultAPIKey,
		"GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9", "GEMINI_API_KEY": DefaultAPIKey,
		"HOME": home,
	}
	for k, v := range want {
		if e[k] != v {
			t.Errorf("%s = %q, want %q", k, e[k], v)
		}
	}
	if e["CODEX_HOME"] != "" || e["CLAUDE_CODE_MAX_RETRIES"] != "" {
		t.Errorf("other programs' setup in %v", env)
	}
	cfg, err := os.ReadFile(filepath.Join(home, ".config", "csa-agent", "config.toml"))
	if err != nil || string(cfg) != "model = \""+CSAAgentModel+"\"\nmax_retries = 2\n" {
		t.Errorf("csa-agent config %q, %v", cfg, err)
	}
	if _, err := Prepare(home, "http://127.0.0.1:9/", Options{Programs: []string{"csa-agent"}}); err != nil {
		t.Fatal(err)
	}
	if cfg, _ := os.ReadFile(filepath.Join(home, ".config", "csa-agent", "config.toml")); strings.Contains(string(cfg), "max_retries") {
		t.Errorf("Retries 0 keeps csa-agent's own: %q", cfg)
	}
	if Model("csa-agent") != CSAAgentModel || !strings.HasPrefix(CSAAgentModel, "anthropic/") {
		t.Errorf("Model(csa-agent) = %q", Model("csa-agent"))
	}
}

func TestPrepareErrors(t *testing.T) {
	tests := map[string]struct {
		home string
		opts Options
	}{
		"relative home":    {"home", Options{}},
		"unknown program":  {t.TempDir(), Options{Programs: []string{"aider"}}},
		"negative retries": {t.TempDir(), Options{Retries: -2}},
		"relative trusted": {t.TempDir(), Options{Trusted: []string{"rel"}}},
	}
	for name, tt := range tests {
		if _, err := Prepare(tt.home, "http://127.0.0.1:1", tt.opts); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestMerge(t *testing.T) {
	base := []string{"PATH=/bin", "HOME=/root", "CLAUDECODE=1", "PWD=/elsewhere", "LANG=C"}
	got := Merge(base, []string{"HOME=/h", "X=1"})
	want := []string{"PATH=/bin", "LANG=C", "HOME=/h", "X=1"}
	if !slices.Equal(got, want) {
		t.Errorf("Merge = %v, want %v", got, want)
	}
}

// get walks decoded JSON objects.
func get(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// TestPrepareKeepsTheHomesSettings: Claude Code's files in a test's HOME
// keep what the test wrote (enabledPlugins, projects) beside the keys
// Prepare sets.
func TestPrepareKeepsTheHomesSettings(t *testing.T) {
	home := t.TempDir()
	if err := writeFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"enabledPlugins": {"x@m": true}}`)); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(filepath.Join(home, ".claude.json"), []byte(`{"projects": {"/elsewhere": {"allowedTools": []}}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := Prepare(home, "http://127.0.0.1:1", Options{Programs: []string{"claude"}, Trusted: []string{"/work"}}); err != nil {
		t.Fatal(err)
	}
	s := readJSON(t, filepath.Join(home, ".claude", "settings.json"))
	if s["skipDangerousModePermissionPrompt"] != true || s["enabledPlugins"] == nil {
		t.Errorf("settings.json %v", s)
	}
	projects, _ := readJSON(t, filepath.Join(home, ".claude.json"))["projects"].(map[string]any)
	if projects["/elsewhere"] == nil || projects["/work"] == nil {
		t.Errorf(".claude.json projects %v", projects)
	}
}
