// Package providers makes llm.Providers from a model spec such as
// "anthropic/claude-sonnet-4-5", the environment and csa-agent's config.
package providers

import (
	"sort"
	"strings"
)

// APIs a provider can speak.
const (
	APIAnthropic = "anthropic" // Anthropic Messages
	APIResponses = "responses" // OpenAI Responses
	APIChat      = "chat"      // OpenAI Chat Completions, any compatible server
	APIGemini    = "gemini"    // Gemini generateContent
)

// builtin is a provider known without config.
type builtin struct {
	api     string
	baseURL string
	baseEnv string   // overrides baseURL when set
	keyEnvs []string // tried in order
	noKey   bool     // a local server that takes none
}

var builtins = map[string]builtin{
	"anthropic":  {api: APIAnthropic, baseURL: "https://api.anthropic.com", baseEnv: "ANTHROPIC_BASE_URL", keyEnvs: []string{"ANTHROPIC_API_KEY"}},
	"openai":     {api: APIResponses, baseURL: "https://api.openai.com/v1", baseEnv: "OPENAI_BASE_URL", keyEnvs: []string{"OPENAI_API_KEY"}},
	"gemini":     {api: APIGemini, baseURL: "https://generativelanguage.googleapis.com", baseEnv: "GOOGLE_GEMINI_BASE_URL", keyEnvs: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}},
	"google":     {api: APIGemini, baseURL: "https://generativelanguage.googleapis.com", baseEnv: "GOOGLE_GEMINI_BASE_URL", keyEnvs: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}},
	"openrouter": {api: APIChat, baseURL: "https://openrouter.ai/api/v1", keyEnvs: []string{"OPENROUTER_API_KEY"}},
	"ollama":     {api: APIChat, baseURL: "http://127.0.0.1:11434/v1", baseEnv: "OLLAMA_HOST", noKey: true},
}

// inferred maps model name prefixes to the provider that serves them.
var inferred = []struct{ prefix, provider string }{
	{"claude", "anthropic"},
	{"gpt", "openai"}, {"o1", "openai"}, {"o3", "openai"}, {"o4", "openai"}, {"codex", "openai"},
	{"gemini", "gemini"},
}

func infer(model string) string {
	for _, p := range inferred {
		if strings.HasPrefix(model, p.prefix) {
			return p.provider
		}
	}
	return ""
}

// ollamaURL makes OLLAMA_HOST (host:port, or a URL) a base URL of its
// OpenAI-compatible API.
func ollamaURL(host string) string {
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	host = strings.TrimRight(host, "/")
	if !strings.HasSuffix(host, "/v1") {
		host += "/v1"
	}
	return host
}

// known lists the provider names, built in and configured, sorted.
func known(conf Conf) []string {
	var out []string
	for n := range builtins {
		out = append(out, n)
	}
	for n := range conf.Providers {
		if _, ok := builtins[n]; !ok {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
