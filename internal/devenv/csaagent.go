package devenv

// CSAAgentModel is the provider/model csa-agent is asked for in a prepared
// HOME: the model server answers any model name, and the provider part
// gives csa-agent its model family (for --tool auto, reviews, debates).
const CSAAgentModel = "anthropic/claude-sonnet-4-5"

// prepareCSAAgent sets up csa-agent, which reads its providers' keys and
// base URLs from the environment only: every provider it speaks is the
// model server. It keeps nothing in HOME but its conversations (under
// $CSA_SESSION_DIR/csa-agent when csa runs it).
func prepareCSAAgent(home, url string, o Options, env map[string]string) error {
	env["ANTHROPIC_BASE_URL"] = url
	env["ANTHROPIC_API_KEY"] = o.APIKey
	env["OPENAI_BASE_URL"] = url + "/v1"
	env["OPENAI_API_KEY"] = o.APIKey
	env["GOOGLE_GEMINI_BASE_URL"] = url
	env["GEMINI_API_KEY"] = o.APIKey
	return nil
}
