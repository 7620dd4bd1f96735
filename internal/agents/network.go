package agents

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/csa-dev/csa/internal/csaenv"
)

// Where a tool's model endpoints are, for a run whose network is
// confined (internal/sandbox): those on loopback are reached directly,
// the others through csa's egress proxy.

// EndpointEnv is what a tool's configuration is read from: the run's
// environment (the tool's configured env over csa's own) and its
// working directory.
type EndpointEnv struct {
	Getenv func(string) string
	// Environ lists the names and values Getenv answers for.
	Environ []string
	Cwd     string
}

// ModelEndpoints are the URLs of the model endpoints s's program is
// configured with: the run's *_BASE_URL variables (ANTHROPIC_BASE_URL,
// OPENAI_BASE_URL, GOOGLE_GEMINI_BASE_URL, ...) and what its own
// configuration names (Spec.ConfigEndpoints). Values that are not
// absolute URLs with a host are left out.
func (s *Spec) ModelEndpoints(e EndpointEnv) []string {
	var urls []string
	var seen []string
	for i := len(e.Environ) - 1; i >= 0; i-- {
		k, _, _ := strings.Cut(e.Environ[i], "=")
		if !strings.HasSuffix(k, "_BASE_URL") || slices.Contains(seen, k) {
			continue
		}
		seen = append(seen, k)
		urls = appendURL(urls, e.Getenv(k))
	}
	if s.ConfigEndpoints != nil {
		for _, u := range s.ConfigEndpoints(e) {
			urls = appendURL(urls, u)
		}
	}
	return urls
}

func appendURL(urls []string, raw string) []string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Scheme == "" || u.Hostname() == "" || slices.Contains(urls, u.String()) {
		return urls
	}
	return append(urls, u.String())
}

// codexEndpoints are the base URLs of $CODEX_HOME/config.toml's
// model_providers (~/.codex when CODEX_HOME is unset).
func codexEndpoints(e EndpointEnv) []string {
	home := e.Getenv("CODEX_HOME")
	if home == "" {
		home = filepath.Join(e.Getenv("HOME"), ".codex")
	}
	var cfg struct {
		Providers map[string]struct {
			BaseURL string `toml:"base_url"`
		} `toml:"model_providers"`
	}
	data, err := os.ReadFile(filepath.Join(home, "config.toml"))
	if err != nil || toml.Unmarshal(data, &cfg) != nil {
		return nil // no config (or one codex itself would refuse): nothing named
	}
	var urls []string
	for _, p := range cfg.Providers {
		urls = append(urls, p.BaseURL)
	}
	return urls
}

// opencodeEndpoints are the options.baseURL of the providers in
// OpenCode's configs: $OPENCODE_CONFIG, the global opencode.json
// ($XDG_CONFIG_HOME/opencode, ~/.config/opencode) and the project's.
func opencodeEndpoints(e EndpointEnv) []string {
	cfgHome := e.Getenv("XDG_CONFIG_HOME")
	if cfgHome == "" {
		cfgHome = filepath.Join(e.Getenv("HOME"), ".config")
	}
	files := []string{filepath.Join(cfgHome, "opencode", "opencode.json"), filepath.Join(e.Cwd, "opencode.json")}
	if p := e.Getenv("OPENCODE_CONFIG"); p != "" {
		files = append(files, p)
	}
	var urls []string
	for _, f := range files {
		var cfg struct {
			Provider map[string]struct {
				Options struct {
					BaseURL string `json:"baseURL"`
				} `json:"options"`
			} `json:"provider"`
		}
		data, err := os.ReadFile(f)
		if err != nil || json.Unmarshal(data, &cfg) != nil {
			continue
		}
		for _, p := range cfg.Provider {
			urls = append(urls, p.Options.BaseURL)
		}
	}
	return urls
}

// csaAgentEndpoints are the base URLs of csa-agent's configured
// providers: its config file, found as csaagent/config.Path finds it
// (not imported: it links csa-agent's providers into csa).
func csaAgentEndpoints(e EndpointEnv) []string {
	path := e.Getenv(csaenv.AgentConfig)
	if path == "" {
		dir := e.Getenv("XDG_CONFIG_HOME")
		if dir == "" {
			dir = filepath.Join(e.Getenv("HOME"), ".config")
		}
		path = filepath.Join(dir, "csa-agent", "config.toml")
	}
	var cfg struct {
		Providers map[string]struct {
			BaseURL string `toml:"base_url"`
		} `toml:"providers"`
	}
	data, err := os.ReadFile(path)
	if err != nil || toml.Unmarshal(data, &cfg) != nil {
		return nil
	}
	var urls []string
	for _, p := range cfg.Providers {
		urls = append(urls, p.BaseURL)
	}
	return urls
}
