package providers

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"
)

// Inherit is the model name that means the session's model, as in Claude
// Code's agent files.
const Inherit = "inherit"

// Beta1M is the anthropic-beta value asking for a 1M-token context
// window, which Claude Code sends for a model written with "[1m]".
const Beta1M = "context-1m-2025-08-07"

// suffix1M is Claude Code's "[1m]" (any case, repeated) after a model.
var suffix1M = regexp.MustCompile(`(?i)(\[1m\])+$`)

// Aliases is what Claude Code's model names mean beside the built-in
// table: Any maps an alias to a model spec whatever the provider;
// Provider[p] maps it to a model of provider p.
type Aliases struct {
	Any      map[string]string
	Provider map[string]map[string]string
}

// defaultAliases are the models of each class per built-in provider. The
// Anthropic ones are Claude Code 2.1.197's first-party aliases; the others
// are the nearest class of each provider: its flagship, its balanced and
// its small fast model.
var defaultAliases = map[string]map[string]string{
	"anthropic": {"opus": "claude-opus-4-8", "sonnet": "claude-sonnet-5", "haiku": "claude-haiku-4-5"},
	"openai":    {"opus": "gpt-5", "sonnet": "gpt-5-mini", "haiku": "gpt-5-nano"},
	"gemini":    {"opus": "gemini-2.5-pro", "sonnet": "gemini-2.5-flash", "haiku": "gemini-2.5-flash-lite"},
	"google":    {"opus": "gemini-2.5-pro", "sonnet": "gemini-2.5-flash", "haiku": "gemini-2.5-flash-lite"},
}

// anthropicEnv are Claude Code's variables naming the Anthropic model of
// an alias; csa-agent honours them as Claude Code does.
var anthropicEnv = map[string]string{
	"opus":   "ANTHROPIC_DEFAULT_OPUS_MODEL",
	"sonnet": "ANTHROPIC_DEFAULT_SONNET_MODEL",
	"haiku":  "ANTHROPIC_DEFAULT_HAIKU_MODEL",
}

// DefaultAliases is the built-in alias table of provider (nil for one
// without: its aliases are the session's model), for documentation and
// tests.
func DefaultAliases(provider string) map[string]string { return defaultAliases[provider] }

// Expanded is a model spec with its aliases and suffix resolved.
type Expanded struct {
	Spec      string // provider/model, or a bare model whose provider is inferred
	Context1M bool   // "[1m]" asked for the 1M-token context window
}

// Expand resolves Claude Code's model names in spec against session, the
// spec of the session's model ("" when there is none yet):
//   - "inherit" is the session's model;
//   - an alias (sonnet, opus, haiku, or one the config names), bare or
//     as "provider/alias", is the model of that class of its provider (the
//     session's, else anthropic): from the config's table of the provider,
//     its table for any provider, Claude Code's ANTHROPIC_DEFAULT_*_MODEL
//     (for a provider speaking Anthropic's API), the built-in table (for
//     any provider speaking Anthropic's API, Anthropic's), else the
//     session's model;
//   - a bare model whose provider its name does not tell is a model of
//     the session's provider;
//   - a "[1m]" suffix is taken off and reported as Context1M;
//   - anything else is returned as it is.
func Expand(spec, session string, conf Conf, getenv func(string) string) (Expanded, error) {
	base := suffix1M.ReplaceAllString(spec, "")
	e := Expanded{Spec: base, Context1M: base != spec}
	if base == "" {
		return e, fmt.Errorf("no model given")
	}
	if strings.EqualFold(base, Inherit) {
		if session == "" {
			return e, fmt.Errorf("model %q is the session's model, and there is none: name a model", spec)
		}
		s, err := Expand(session, "", conf, getenv)
		s.Context1M = s.Context1M || e.Context1M
		return s, err
	}
	provider, alias := "", base
	if p, a, ok := strings.Cut(base, "/"); ok {
		provider, alias = p, a
		if _, built := builtins[p]; !built && !hasProvider(conf, p) {
			return e, nil // not a provider: split names the known ones
		}
	}
	alias = strings.ToLower(alias)
	if provider == "" {
		if !isAlias(alias, conf) && infer(base) != "" {
			return e, nil
		}
		sp, err := sessionProvider(session, conf, getenv)
		if err != nil {
			return e, err
		}
		if !isAlias(alias, conf) {
			if sp != "" {
				e.Spec = sp + "/" + base // a model of the session's provider
			}
			return e, nil
		}
		provider = cmp.Or(sp, "anthropic")
	} else if !isAlias(alias, conf) {
		return e, nil
	}
	if m := conf.Aliases.Provider[provider][alias]; m != "" {
		e.Spec = provider + "/" + m
		return e, nil
	}
	if s := conf.Aliases.Any[alias]; s != "" {
		e.Spec = s
		return e, nil
	}
	speaksAnthropic := apiOf(provider, conf) == APIAnthropic
	if v := anthropicEnv[alias]; speaksAnthropic && v != "" && getenv(v) != "" {
		e.Spec = provider + "/" + getenv(v)
		return e, nil
	}
	table := defaultAliases[provider]
	if table == nil && speaksAnthropic {
		table = defaultAliases["anthropic"] // a proxy of Anthropic's API
	}
	if m := table[alias]; m != "" {
		e.Spec = provider + "/" + m
		return e, nil
	}
	if session == "" {
		return e, fmt.Errorf("model alias %q means no model of provider %s: set it under [model_aliases.%s] in the config", alias, provider, provider)
	}
	return Expand(session, "", conf, getenv)
}

// sessionProvider is the provider of the session's model, "" when
// there is no session.
func sessionProvider(session string, conf Conf, getenv func(string) string) (string, error) {
	if session == "" {
		return "", nil
	}
	s, err := Expand(session, "", conf, getenv)
	if err != nil {
		return "", err
	}
	p, _, err := split(s.Spec, conf)
	return p, err
}

// apiOf is the API provider speaks.
func apiOf(provider string, conf Conf) string {
	return cmp.Or(conf.Providers[provider].API, builtins[provider].api)
}

// isAlias tells whether name (lower case) is a model alias: a built-in
// one or one the config names.
func isAlias(name string, conf Conf) bool {
	if _, ok := defaultAliases["anthropic"][name]; ok {
		return true
	}
	if _, ok := conf.Aliases.Any[name]; ok {
		return true
	}
	for _, table := range conf.Aliases.Provider {
		if _, ok := table[name]; ok {
			return true
		}
	}
	return false
}
