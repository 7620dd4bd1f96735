package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/config"
	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/llm/providers"
	"github.com/csa-dev/csa/internal/csaagent/perm"
	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// The parts a session is assembled from, each from flags and config.

// rootsOf is the directories file tools may use: cwd and the extra ones.
func rootsOf(cwd string, extra []string) []string {
	roots := []string{cwd}
	for _, d := range extra {
		if !filepath.IsAbs(d) {
			d = filepath.Join(cwd, d)
		}
		roots = append(roots, filepath.Clean(d))
	}
	return roots
}

func newEnv(cwd string, roots []string, id string) *tool.Env {
	spill := filepath.Join(os.TempDir(), "csa-agent-"+id)
	return &tool.Env{Cwd: cwd, Roots: roots, Files: tool.NewFileState(), Jobs: tool.NewJobs(filepath.Join(spill, "jobs")),
		Todos: &tool.Todos{}, SpillDir: spill}
}

func policy(o *options, cfg *config.Config, cwd string, roots []string) (*perm.Policy, error) {
	modeName := firstOf(o.permissionMode, cfg.PermissionMode, string(perm.Default))
	if o.skipPerms {
		modeName = string(perm.BypassPermissions)
	}
	mode, err := perm.ParseMode(modeName)
	if err != nil {
		return nil, err
	}
	allow, err := perm.ParseRules(append(append([]string(nil), cfg.Allow...), o.allowed...))
	if err != nil {
		return nil, err
	}
	deny, err := perm.ParseRules(append(append([]string(nil), cfg.Deny...), o.disallowed...))
	if err != nil {
		return nil, err
	}
	return perm.NewPolicy(mode, allow, deny, cwd, roots), nil
}

// visibleTools drops the tools denied by name alone: the model need not
// see them.
func visibleTools(all []tool.Tool, denied []string) []tool.Tool {
	var out []tool.Tool
	for _, t := range all {
		if !contains(denied, t.Name()) {
			out = append(out, t)
		}
	}
	return out
}

func providerConf(cfg *config.Config) providers.Conf {
	c := providers.Conf{Providers: map[string]providers.ProviderConf{}}
	for name, p := range cfg.Providers {
		c.Providers[name] = providers.ProviderConf{API: p.API, BaseURL: p.BaseURL, APIKeyEnv: p.APIKeyEnv, APIKey: p.APIKey, Headers: p.Headers}
	}
	c.Timeouts = llm.Timeouts{Request: seconds(cfg.RequestTimeout), Stall: seconds(cfg.StallTimeout)}
	c.Aliases = providers.Aliases{Any: cfg.Aliases.Any, Provider: cfg.Aliases.Provider}
	return c
}

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

func firstOf(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

func firstInt(v ...int) int {
	for _, n := range v {
		if n != 0 {
			return n
		}
	}
	return 0
}

func names(ts []tool.Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name()
	}
	return out
}

// modes lets plan mode switch the policy's mode by name.
type modes struct{ p *perm.Policy }

func (m modes) Mode() string { return string(m.p.Mode()) }

func (m modes) SetMode(name string) error {
	mode, err := perm.ParseMode(name)
	if err != nil {
		return err
	}
	m.p.SetMode(mode)
	return nil
}

// fallbackModel resolves --fallback-model (or the config's) as --model
// is resolved, Claude Code's aliases (sonnet, haiku...) and "inherit"
// included, against the session's model: the model name to switch to,
// which must be of main, the session's provider. "" for none.
func fallbackModel(spec, session string, main llm.Provider, conf providers.Conf, getenv func(string) string) (string, error) {
	if spec == "" {
		return "", nil
	}
	c, err := providers.Choose(spec, session, conf, getenv)
	if err != nil {
		return "", fmt.Errorf("fallback model: %w", err)
	}
	if c.Provider.Name() != main.Name() {
		return "", fmt.Errorf("fallback model %q is a model of %s, not of the session's provider %s", spec, c.Provider.Name(), main.Name())
	}
	return c.Model, nil
}

// loaded is what a loader read, and what it could not.
type loaded[T any] struct {
	v   T
	err error
}

// inBackground runs f on a goroutine of its own at once; the function it
// returns waits for f's result, as often as it is called.
func inBackground[T any](f func() T) func() T {
	var v T
	done := make(chan struct{})
	go func() {
		defer close(done)
		v = f()
	}()
	return func() T {
		<-done
		return v
	}
}
