package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/testkit/modelserver"
)

// TestAliasesPerProvider: every alias against every built-in provider's
// session resolves to that provider's model of the class; a provider
// without a table (and a local one) falls back to the session's model.
func TestAliasesPerProvider(t *testing.T) {
	conf := Conf{Providers: map[string]ProviderConf{"vllm": {API: APIChat, BaseURL: "http://x/v1"}}}
	want := map[string]map[string]string{
		"anthropic/claude-x": {"opus": "anthropic/claude-opus-4-8", "sonnet": "anthropic/claude-sonnet-5", "haiku": "anthropic/claude-haiku-4-5"},
		"openai/gpt-x":       {"opus": "openai/gpt-5", "sonnet": "openai/gpt-5-mini", "haiku": "openai/gpt-5-nano"},
		"gemini/gemini-x":    {"opus": "gemini/gemini-2.5-pro", "sonnet": "gemini/gemini-2.5-flash", "haiku": "gemini/gemini-2.5-flash-lite"},
		"google/gemini-x":    {"opus": "google/gemini-2.5-pro", "sonnet": "google/gemini-2.5-flash", "haiku": "google/gemini-2.5-flash-lite"},
		"openrouter/a/b":     {"opus": "openrouter/a/b", "sonnet": "openrouter/a/b", "haiku": "openrouter/a/b"},
		"ollama/llama3":      {"opus": "ollama/llama3", "sonnet": "ollama/llama3", "haiku": "ollama/llama3"},
		"vllm/qwen3":         {"opus": "vllm/qwen3", "sonnet": "vllm/qwen3", "haiku": "vllm/qwen3"},
		// A bare session model: its provider is inferred.
		"gpt-x": {"opus": "openai/gpt-5", "sonnet": "openai/gpt-5-mini", "haiku": "openai/gpt-5-nano"},
	}
	for session, aliases := range want {
		for alias, spec := range aliases {
			for _, written := range []string{alias, strings.ToUpper(alias)} {
				e, err := Expand(written, session, conf, env())
				if err != nil || e.Spec != spec || e.Context1M {
					t.Errorf("%s in session %s: %+v, %v; want %s", written, session, e, err, spec)
				}
			}
		}
	}
	// Without a session, an alias is Anthropic's, as in Claude Code.
	for alias, m := range DefaultAliases("anthropic") {
		if e, err := Expand(alias, "", conf, env()); err != nil || e.Spec != "anthropic/"+m {
			t.Errorf("%s alone: %+v, %v", alias, e, err)
		}
	}
}

func TestAliasesInheritSuffixAndPassThrough(t *testing.T) {
	conf := Conf{Providers: map[string]ProviderConf{
		"proxy": {API: APIAnthropic, BaseURL: "http://x"},
		"vllm":  {API: APIChat, BaseURL: "http://x/v1"},
	}}
	tests := []struct {
		spec, session, want string
		oneM                bool
	}{
		{"inherit", "openai/gpt-x", "openai/gpt-x", false},
		{"Inherit", "vllm/qwen3", "vllm/qwen3", false},
		{"inherit", "sonnet", "anthropic/claude-sonnet-5", false}, // the session's own alias
		{"inherit[1m]", "anthropic/claude-x", "anthropic/claude-x", true},
		{"sonnet[1m]", "", "anthropic/claude-sonnet-5", true},
		{"opus[1M]", "anthropic/claude-x", "anthropic/claude-opus-4-8", true},
		{"claude-sonnet-4-5[1m]", "", "claude-sonnet-4-5", true},
		{"anthropic/claude-sonnet-4-5[1m]", "", "anthropic/claude-sonnet-4-5", true},
		{"sonnet[1m]", "openai/gpt-x", "openai/gpt-5-mini", true},
		// provider/alias names the provider of the alias.
		{"openai/haiku", "anthropic/claude-x", "openai/gpt-5-nano", false},
		{"gemini/opus", "", "gemini/gemini-2.5-pro", false},
		// A provider speaking Anthropic's API takes Anthropic's table.
		{"haiku", "proxy/claude-x", "proxy/claude-haiku-4-5", false},
		// Names that are no alias pass through as model ids: of the
		// provider their name tells, else of the session's provider.
		{"claude-opus-4-1", "openai/gpt-x", "claude-opus-4-1", false},
		{"gpt-5.5", "anthropic/claude-x", "gpt-5.5", false},
		{"qwen3-coder", "vllm/qwen3", "vllm/qwen3-coder", false},
		{"sonnet-custom", "ollama/llama3", "ollama/sonnet-custom", false},
		{"openrouter/anthropic/claude-sonnet-4", "anthropic/claude-x", "openrouter/anthropic/claude-sonnet-4", false},
	}
	for _, tt := range tests {
		e, err := Expand(tt.spec, tt.session, conf, env())
		if err != nil || e.Spec != tt.want || e.Context1M != tt.oneM {
			t.Errorf("%s in session %q: %+v, %v; want %s, 1M %v", tt.spec, tt.session, e, err, tt.want, tt.oneM)
		}
	}
	for _, spec := range []string{"inherit", "[1m]"} {
		if _, err := Expand(spec, "", conf, env()); err == nil {
			t.Errorf("%s with no session: no error", spec)
		}
	}
	// An unknown bare name with no session still asks for provider/model.
	if _, err := Choose("llama3", "", conf, env()); err == nil || !strings.Contains(err.Error(), "write provider/model") {
		t.Errorf("llama3 alone: %v", err)
	}
}

// TestAliasesConfigured: the config's per-provider table beats its table
// for any provider, which beats Claude Code's variables and the built-in
// table; a configured name becomes an alias of its own.
func TestAliasesConfigured(t *testing.T) {
	conf := Conf{Aliases: Aliases{
		Any:      map[string]string{"sonnet": "gemini/gemini-3-pro", "fable": "anthropic/claude-fable-5"},
		Provider: map[string]map[string]string{"openai": {"sonnet": "gpt-5.5"}, "ollama": {"haiku": "qwen3:4b"}},
	}}
	getenv := env("ANTHROPIC_DEFAULT_OPUS_MODEL", "claude-opus-from-env")
	tests := []struct{ spec, session, want string }{
		{"sonnet", "openai/gpt-x", "openai/gpt-5.5"},
		{"sonnet", "anthropic/claude-x", "gemini/gemini-3-pro"},
		{"sonnet", "", "gemini/gemini-3-pro"},
		{"haiku", "ollama/llama3", "ollama/qwen3:4b"},
		{"opus", "ollama/llama3", "ollama/llama3"},
		{"opus", "anthropic/claude-x", "anthropic/claude-opus-from-env"},
		{"opus", "openai/gpt-x", "openai/gpt-5"},
		{"fable", "openai/gpt-x", "anthropic/claude-fable-5"},
		{"fable[1m]", "", "anthropic/claude-fable-5"},
	}
	for _, tt := range tests {
		e, err := Expand(tt.spec, tt.session, conf, getenv)
		if err != nil || e.Spec != tt.want {
			t.Errorf("%s in session %q: %+v, %v; want %s", tt.spec, tt.session, e, err, tt.want)
		}
	}
	// An alias only a provider's table names means nothing to a provider
	// without it when there is no session model to fall back on.
	only := Conf{Aliases: Aliases{Provider: map[string]map[string]string{"openai": {"mini": "gpt-5-mini"}}}}
	if _, err := Expand("mini", "", only, env()); err == nil || !strings.Contains(err.Error(), "[model_aliases.anthropic]") {
		t.Errorf("mini with no session: %v", err)
	}
}

// TestChoose1MHeader: "[1m]" sends Claude Code's context-1m beta to an
// Anthropic API provider, beside any configured beta, and the model id
// without the suffix; other APIs get the base model and no header.
func TestChoose1MHeader(t *testing.T) {
	script, err := modelserver.Parse([]byte("[[rule]]\ncontains = 'hi'\n[[rule.step]]\ntext = 'hello'\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv := modelserver.New(script, modelserver.Options{})
	if _, err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// The scripted server records no headers: a front records each
	// request's model and beta, in the order they come.
	var mu sync.Mutex
	var seen []string
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct{ Model string }
		json.Unmarshal(body, &req)
		mu.Lock()
		seen = append(seen, req.Model+" "+r.Header.Get("anthropic-beta"))
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		srv.ServeHTTP(w, r)
	}))
	defer front.Close()
	url := front.URL
	conf := Conf{Providers: map[string]ProviderConf{
		"anthropic": {BaseURL: url, Headers: map[string]string{"anthropic-beta": "other-beta"}},
		"local":     {API: APIChat, BaseURL: url + "/v1"},
	}}
	for _, spec := range []string{"opus[1m]", "anthropic/claude-x", "local/m[1m]"} {
		c, err := Choose(spec, "", conf, env("ANTHROPIC_API_KEY", "k"))
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if _, err := c.Provider.Stream(context.Background(), &llm.Request{Model: c.Model, MaxTokens: 10,
			Messages: []llm.Message{llm.UserText("hi")}}, func(llm.Delta) {}); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"claude-opus-4-8 other-beta," + Beta1M, "claude-x other-beta", "m "}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("requests %q, want %q", seen, want)
	}
	if h := conf.Providers["anthropic"].Headers["anthropic-beta"]; h != "other-beta" {
		t.Errorf("the config's headers changed: %q", h)
	}
}
