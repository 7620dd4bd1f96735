package devenv

import (
	"path/filepath"

	"github.com/csa-dev/csa/internal/agents"
)

// OpenCodeModel is the provider/model OpenCode is configured with.
const OpenCodeModel = "csa/scripted"

// Model is the model a tool must be asked for in a prepared HOME, "" for
// its own default.
func Model(t agents.Tool) string {
	switch t {
	case agents.Opencode:
		return OpenCodeModel
	case agents.CSAAgent:
		return CSAAgentModel
	}
	return ""
}

// prepareOpenCode sets up OpenCode with an OpenAI-compatible provider.
func prepareOpenCode(home, url string, o Options, env map[string]string) error {
	cfg := map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{"csa": map[string]any{
			"npm":     "@ai-sdk/openai-compatible", // bundled: nothing to download
			"name":    "csa model server",
			"options": map[string]any{"baseURL": url + "/v1", "apiKey": o.APIKey},
			"models":  map[string]any{"scripted": map[string]any{"name": "scripted", "tool_call": true}},
		}},
		"model":       OpenCodeModel,
		"small_model": OpenCodeModel,
		"autoupdate":  false,
		"share":       "disabled",
	}
	if err := writeJSONFile(filepath.Join(home, ".config", "opencode", "opencode.json"), cfg); err != nil {
		return err
	}
	for _, k := range []string{"OPENCODE_DISABLE_MODELS_FETCH", "OPENCODE_DISABLE_AUTOUPDATE",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS", "OPENCODE_DISABLE_LSP_DOWNLOAD", "OPENCODE_DISABLE_SHARE"} {
		env[k] = "1"
	}
	return nil
}
