package providers

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/llm/anthropic"
	"github.com/csa-dev/csa/internal/csaagent/llm/gemini"
	"github.com/csa-dev/csa/internal/csaagent/llm/httpc"
	"github.com/csa-dev/csa/internal/csaagent/llm/openai"
)

// Conf is csa-agent's provider config, decoded from TOML by its caller.
type Conf struct {
	// Providers override built-in providers' fields or add new ones (a
	// new one needs API and, for chat, BaseURL).
	Providers map[string]ProviderConf `toml:"providers"`
	Timeouts  llm.Timeouts            `toml:"timeouts"`
	// Aliases add to or override the built-in model aliases (Expand).
	Aliases Aliases `toml:"-"`
}

// ProviderConf configures one provider; empty fields keep the built-in's.
type ProviderConf struct {
	API       string            `toml:"api"` // anthropic, responses, chat or gemini
	BaseURL   string            `toml:"base_url"`
	APIKeyEnv string            `toml:"api_key_env"` // the variable holding the key
	APIKey    string            `toml:"api_key"`     // the key itself (prefer APIKeyEnv)
	Headers   map[string]string `toml:"headers"`
}

// Config is a resolved provider's settings.
type Config struct {
	API      string // "" takes the built-in provider's of that name
	BaseURL  string // "" takes the API's default
	APIKey   string
	Headers  map[string]string
	Timeouts llm.Timeouts
	Client   *http.Client // nil: a shared client
}

// New makes the provider name speaking cfg.API.
func New(name string, cfg Config) (llm.Provider, error) {
	api := cfg.API
	if api == "" {
		api = builtins[name].api
	}
	ep := httpc.Endpoint{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Headers: cfg.Headers, Timeouts: cfg.Timeouts, Client: cfg.Client}
	switch api {
	case APIAnthropic:
		return anthropic.New(name, ep), nil
	case APIResponses:
		return openai.NewResponses(name, ep), nil
	case APIChat:
		if ep.BaseURL == "" && name != "openai" {
			return nil, fmt.Errorf("provider %s: a chat provider needs base_url", name)
		}
		return openai.NewChat(name, ep), nil
	case APIGemini:
		return gemini.New(name, ep), nil
	case "":
		return nil, fmt.Errorf("provider %s: no api set (anthropic, responses, chat or gemini)", name)
	}
	return nil, fmt.Errorf("provider %s: unknown api %q (anthropic, responses, chat or gemini)", name, api)
}

// Resolve makes the provider and model of a model spec: "provider/model"
// (the provider built in or configured), a bare model whose provider its
// name tells (claude*, gpt*, o1*, o3*, o4*, codex*, gemini*), or one of
// Claude Code's names (Expand) with no session to inherit from.
func Resolve(modelSpec string, conf Conf, getenv func(string) string) (llm.Provider, string, error) {
	c, err := Choose(modelSpec, "", conf, getenv)
	return c.Provider, c.Model, err
}

// Choice is a model spec resolved: the provider to ask and the model id
// to send it.
type Choice struct {
	Provider llm.Provider
	Model    string
	// Spec is what the spec was expanded to (provider/model, or a bare
	// model), for per-model settings.
	Spec string
	// Context1M: "[1m]" asked for the 1M-token context window; an
	// Anthropic API provider sends Beta1M for it, others ignore it.
	Context1M bool
}

// Choose resolves spec as Resolve does, with "inherit" and the aliases
// taken against session, the spec of the session's model ("" for none).
func Choose(spec, session string, conf Conf, getenv func(string) string) (Choice, error) {
	e, err := Expand(spec, session, conf, getenv)
	if err != nil {
		return Choice{}, err
	}
	name, model, err := split(e.Spec, conf)
	if err != nil {
		return Choice{}, err
	}
	cfg, err := configure(name, conf, getenv)
	if err != nil {
		return Choice{}, err
	}
	if e.Context1M && cfg.API == APIAnthropic {
		cfg.Headers = withBeta(cfg.Headers, Beta1M)
	}
	p, err := New(name, cfg)
	return Choice{Provider: p, Model: model, Spec: e.Spec, Context1M: e.Context1M}, err
}

// withBeta is headers with beta added to its anthropic-beta list; the
// map given is left as it is (it is the config's).
func withBeta(headers map[string]string, beta string) map[string]string {
	out := map[string]string{}
	for k, v := range headers {
		if strings.EqualFold(k, "anthropic-beta") {
			beta = v + "," + beta
			continue
		}
		out[k] = v
	}
	out["anthropic-beta"] = beta
	return out
}

// split takes the provider off a model spec. Only the first slash counts:
// OpenRouter's models have their own ("openrouter/anthropic/claude-...").
func split(spec string, conf Conf) (provider, model string, err error) {
	if spec == "" {
		return "", "", fmt.Errorf("no model given")
	}
	if p, m, ok := strings.Cut(spec, "/"); ok {
		if _, built := builtins[p]; built || hasProvider(conf, p) {
			if m == "" {
				return "", "", fmt.Errorf("model spec %q names no model", spec)
			}
			return p, m, nil
		}
		return "", "", fmt.Errorf("unknown provider %q in %q (known: %s)", p, spec, strings.Join(known(conf), ", "))
	}
	if p := infer(spec); p != "" {
		return p, spec, nil
	}
	return "", "", fmt.Errorf("cannot tell the provider of model %q: write provider/model (known providers: %s)",
		spec, strings.Join(known(conf), ", "))
}

func hasProvider(conf Conf, name string) bool {
	_, ok := conf.Providers[name]
	return ok
}

// configure merges a provider's built-in settings, its config and the
// environment.
func configure(name string, conf Conf, getenv func(string) string) (Config, error) {
	b, isBuiltin := builtins[name]
	pc := conf.Providers[name]
	cfg := Config{API: b.api, BaseURL: b.baseURL, Headers: pc.Headers, Timeouts: conf.Timeouts}
	if b.baseEnv != "" && getenv(b.baseEnv) != "" {
		cfg.BaseURL = getenv(b.baseEnv)
		if name == "ollama" {
			cfg.BaseURL = ollamaURL(cfg.BaseURL)
		}
	}
	if pc.API != "" {
		cfg.API = pc.API
	}
	if pc.BaseURL != "" {
		cfg.BaseURL = pc.BaseURL
	}
	envs := b.keyEnvs
	if pc.APIKeyEnv != "" {
		envs = []string{pc.APIKeyEnv}
	}
	cfg.APIKey = pc.APIKey
	for _, e := range envs {
		if cfg.APIKey == "" {
			cfg.APIKey = getenv(e)
		}
	}
	// Configured providers without a key setting are taken to need none
	// (local servers); a built-in one needs its key unless it is local.
	needsKey := (isBuiltin && !b.noKey) || pc.APIKeyEnv != ""
	if cfg.APIKey == "" && needsKey {
		return Config{}, &MissingKeyError{Provider: name, Envs: envs}
	}
	return cfg, nil
}

// MissingKeyError is a provider that needs an API key and has none; its
// class is auth, as a refused key's is.
type MissingKeyError struct {
	Provider string
	Envs     []string
}

func (e *MissingKeyError) Error() string {
	return fmt.Sprintf("%s: no API key: set %s, or api_key_env under [providers.%s] in the config",
		e.Provider, strings.Join(e.Envs, " or "), e.Provider)
}

// Class is llm.ClassAuth, for llm.ClassOf.
func (e *MissingKeyError) Class() string { return llm.ClassAuth }
