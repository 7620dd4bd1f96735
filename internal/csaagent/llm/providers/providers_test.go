package providers

import (
	"context"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/llm/anthropic"
	"github.com/csa-dev/csa/internal/csaagent/llm/gemini"
	"github.com/csa-dev/csa/internal/csaagent/llm/openai"
	"github.com/csa-dev/csa/internal/testkit/modelserver"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestResolve(t *testing.T) {
	keys := env("ANTHROPIC_API_KEY", "a", "OPENAI_API_KEY", "o", "GOOGLE_API_KEY", "g", "OPENROUTER_API_KEY", "r")
	conf := Conf{Providers: map[string]ProviderConf{
		"vllm":   {API: APIChat, BaseURL: "http://127.0.0.1:8000/v1"},
		"openai": {API: APIChat}, // an override: the built-in's key and URL stay
	}}
	tests := []struct {
		spec, name, model string
		conf              Conf
		check             func(llm.Provider) bool
	}{
		{"anthropic/claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5", Conf{}, isA[*anthropic.Provider]},
		{"claude-opus-4-1", "anthropic", "claude-opus-4-1", Conf{}, isA[*anthropic.Provider]},
		{"gpt-5", "openai", "gpt-5", Conf{}, isA[*openai.Responses]},
		{"o3-mini", "openai", "o3-mini", Conf{}, isA[*openai.Responses]},
		{"codex-mini-latest", "openai", "codex-mini-latest", Conf{}, isA[*openai.Responses]},
		{"openai/gpt-5", "openai", "gpt-5", conf, isA[*openai.Chat]},
		{"gemini-2.5-pro", "gemini", "gemini-2.5-pro", Conf{}, isA[*gemini.Provider]},
		{"google/gemini-2.5-flash", "google", "gemini-2.5-flash", Conf{}, isA[*gemini.Provider]},
		{"openrouter/anthropic/claude-sonnet-4", "openrouter", "anthropic/claude-sonnet-4", Conf{}, isA[*openai.Chat]},
		{"ollama/llama3", "ollama", "llama3", Conf{}, isA[*openai.Chat]},
		{"vllm/qwen3", "vllm", "qwen3", conf, isA[*openai.Chat]},
	}
	for _, tt := range tests {
		p, model, err := Resolve(tt.spec, tt.conf, keys)
		if err != nil {
			t.Errorf("%s: %v", tt.spec, err)
			continue
		}
		if p.Name() != tt.name || model != tt.model || !tt.check(p) {
			t.Errorf("%s: %s %T, model %q", tt.spec, p.Name(), p, model)
		}
	}
}

func isA[T llm.Provider](p llm.Provider) bool {
	_, ok := p.(T)
	return ok
}

func TestResolveErrors(t *testing.T) {
	tests := []struct{ spec, want, class string }{
		{"anthropic/claude-x", "ANTHROPIC_API_KEY", llm.ClassAuth},
		{"gemini-2.5-pro", "GEMINI_API_KEY or GOOGLE_API_KEY", llm.ClassAuth},
		{"nowhere/model", "known: anthropic, gemini, google, mine, ollama, openai, openrouter", ""},
		{"llama3", "write provider/model", ""},
		{"mine/m", "no api set", ""},
		{"anthropic/", "names no model", ""},
	}
	conf := Conf{Providers: map[string]ProviderConf{"mine": {BaseURL: "http://x"}}}
	for _, tt := range tests {
		_, _, err := Resolve(tt.spec, conf, env())
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want it to mention %q", tt.spec, err, tt.want)
			continue
		}
		if tt.class != "" && llm.ClassOf(err) != tt.class {
			t.Errorf("%s: class %s", tt.spec, llm.ClassOf(err))
		}
	}
}

func TestOllamaURL(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:11434":           "http://127.0.0.1:11434/v1",
		"http://box:11434/":         "http://box:11434/v1",
		"https://ollama.example/v1": "https://ollama.example/v1",
	} {
		if got := ollamaURL(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

// The base URLs from the environment and the config reach the server.
func TestResolvedProvidersTalk(t *testing.T) {
	script, err := modelserver.Parse([]byte("[[rule]]\ncontains = 'hi'\n[[rule.step]]\ntext = 'hello'\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv := modelserver.New(script, modelserver.Options{})
	base, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	getenv := env("ANTHROPIC_API_KEY", "k", "ANTHROPIC_BASE_URL", base, "GEMINI_API_KEY", "k",
		"GOOGLE_GEMINI_BASE_URL", base, "OLLAMA_HOST", strings.TrimPrefix(base, "http://"))
	conf := Conf{Providers: map[string]ProviderConf{
		"local": {API: APIChat, BaseURL: base + "/v1", Headers: map[string]string{"X-Title": "csa"}},
		"resp":  {API: APIResponses, BaseURL: base + "/v1", APIKeyEnv: "ANTHROPIC_API_KEY"},
	}}
	for _, spec := range []string{"claude-x", "gemini-x", "ollama/llama3", "local/qwen", "resp/gpt-x"} {
		p, model, err := Resolve(spec, conf, getenv)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		resp, err := p.Stream(context.Background(), &llm.Request{Model: model, Messages: []llm.Message{llm.UserText("hi")}}, nil)
		if err != nil || resp.Message.Text() != "hello" {
			t.Errorf("%s: %v %+v", spec, err, resp)
		}
	}
}
