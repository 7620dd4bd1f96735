package devenv

import (
	"path/filepath"

	"github.com/pelletier/go-toml/v2"
)

// CodexModel is the model name codex is configured with.
const CodexModel = "gpt-5.5"

// codexKeyVar carries the fake key; config.toml names it as env_key.
const codexKeyVar = "CSA_MODEL_API_KEY"

// prepareCodex sets up Codex (and codex-acp, which reads the same config).
func prepareCodex(home, url string, o Options, env map[string]string) error {
	trusted, err := uniqueAbs(o.Trusted)
	if err != nil {
		return err
	}
	codexHome := filepath.Join(home, ".codex")
	provider := map[string]any{
		"name":     "csa model server",
		"base_url": url + "/v1",
		"env_key":  codexKeyVar,
		// "chat" is rejected by codex 0.169.
		"wire_api": "responses",
	}
	if o.Retries != ProgramRetries {
		// Codex retries a 429 five times by default (~5 s).
		provider["request_max_retries"] = o.Retries
		provider["stream_max_retries"] = o.Retries
	}
	cfg := map[string]any{
		"model":                       CodexModel,
		"model_provider":              "csa",
		"check_for_update_on_startup": false,
		"model_providers":             map[string]any{"csa": provider},
		// Without these codex contacts outside hosts and hangs ~5 s at exit.
		"analytics": map[string]any{"enabled": false},
		"otel":      map[string]any{"metrics_exporter": "none"},
		// daemon_auto_start=false stops the interactive UI copying ~400 MB
		// into ~/.codex/packages and leaving app-server daemons behind.
		"features": map[string]any{"plugins": false, "daemon_auto_start": false},
		// The interactive UI opens on a blocking "Meet GPT-6 Sol: try the
		// new model?" screen for a model with an upgrade, unless the
		// migration is recorded as seen.
		"notice": map[string]any{"model_migrations": map[string]any{CodexModel: "gpt-6-sol"}},
	}
	if len(trusted) > 0 {
		projects := map[string]any{}
		for _, d := range trusted {
			projects[d] = map[string]any{"trust_level": "trusted"}
		}
		cfg["projects"] = projects
	}
	data, err := toml.Marshal(cfg)
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(codexHome, "config.toml"), data); err != nil {
		return err
	}
	env["CODEX_HOME"] = codexHome
	env[codexKeyVar] = o.APIKey
	return nil
}
