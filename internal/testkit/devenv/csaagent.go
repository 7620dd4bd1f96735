package devenv

import (
	"fmt"
	"path/filepath"
)

// CSAAgentModel is the provider/model csa-agent is asked for in a prepared
// HOME: the model server answers any model name, and the provider part
// gives csa-agent its model family (for --tool auto, reviews, debates).
const CSAAgentModel = "anthropic/claude-sonnet-4-5"

// prepareCSAAgent sets up csa-agent, which reads its providers' keys and
// base URLs from the environment: every provider it speaks is the model
// server. Its config ($XDG_CONFIG_HOME/csa-agent/config.toml) names the
// model, so it runs without --model too, and bounds its retries. It keeps
// its conversations under $CSA_SESSION_DIR/csa-agent when csa runs it.
func prepareCSAAgent(home, url string, o Options, env map[string]string) error {
	env["ANTHROPIC_BASE_URL"] = url
	env["ANTHROPIC_API_KEY"] = o.APIKey
	env["OPENAI_BASE_URL"] = url + "/v1"
	env["OPENAI_API_KEY"] = o.APIKey
	env["GOOGLE_GEMINI_BASE_URL"] = url
	env["GEMINI_API_KEY"] = o.APIKey
	cfg := fmt.Sprintf("model = %q\n", CSAAgentModel)
	if o.Retries > 0 {
		// Its default is 4 retries, waiting for the server's retry-after
		// (a script keeps retry_after_ms small); 0 keeps that default.
		cfg += fmt.Sprintf("max_retries = %d\n", o.Retries)
	}
	return writeFile(filepath.Join(home, ".config", "csa-agent", "config.toml"), []byte(cfg))
}
