package agents

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestModelEndpoints: each tool's endpoints come from the run's
// *_BASE_URL variables and from where its own configuration keeps them.
func TestModelEndpoints(t *testing.T) {
	home := t.TempDir()
	cwd := t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, "codex", "config.toml"), "model_provider = \"csa\"\n[model_providers.csa]\nbase_url = \"http://127.0.0.1:4100/v1\"\n")
	write(filepath.Join(home, ".config", "opencode", "opencode.json"), `{"provider":{"csa":{"options":{"baseURL":"http://127.0.0.1:4200/v1"}}}}`)
	write(filepath.Join(cwd, "opencode.json"), `{"provider":{"local":{"options":{"baseURL":"https://llm.example.com/v1"}}}}`)
	write(filepath.Join(home, ".config", "csa-agent", "config.toml"), "[providers.local]\napi = \"chat\"\nbase_url = \"http://localhost:4300/v1\"\n")
	environ := []string{"HOME=" + home, "CODEX_HOME=" + filepath.Join(home, "codex"),
		"ANTHROPIC_BASE_URL=http://127.0.0.1:4000", "OPENAI_BASE_URL=old", "OPENAI_BASE_URL=http://127.0.0.1:4001/v1",
		"SOMETHING_BASE_URL=/relative", "PATH=/bin"}
	getenv := func(k string) string {
		v := ""
		for _, kv := range environ {
			if key, val, _ := strings.Cut(kv, "="); key == k {
				v = val
			}
		}
		return v
	}
	e := EndpointEnv{Getenv: getenv, Environ: environ, Cwd: cwd}
	for tool, want := range map[Tool][]string{
		ClaudeCode: {"http://127.0.0.1:4001/v1", "http://127.0.0.1:4000"},
		Codex:      {"http://127.0.0.1:4001/v1", "http://127.0.0.1:4000", "http://127.0.0.1:4100/v1"},
		Opencode:   {"http://127.0.0.1:4001/v1", "http://127.0.0.1:4000", "http://127.0.0.1:4200/v1", "https://llm.example.com/v1"},
		CSAAgent:   {"http://127.0.0.1:4001/v1", "http://127.0.0.1:4000", "http://localhost:4300/v1"},
	} {
		s, _ := Lookup(string(tool))
		if got := s.ModelEndpoints(e); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", tool, got, want)
		}
	}
	for _, s := range Registry {
		if len(s.APIHosts) == 0 {
			t.Errorf("%s names no API host", s.Tool)
		}
	}
}
