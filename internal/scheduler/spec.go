// Package scheduler chooses which model a run uses: tiers of model specs,
// priority or round-robin rotation shared by every csa process, cooldowns
// of rate-limited providers, and the retry and failover policy.
package scheduler

import (
	"fmt"
	"strings"

	"github.com/csa-dev/csa/internal/agents"
)

// Spec is a model spec "tool/provider/model/thinking"; trailing parts may
// be left out ("codex", "codex/gpt-5" is tool/model, "codex/openai/gpt-5").
type Spec struct {
	Raw      string `json:"spec"`
	Tool     string `json:"tool"`
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	Thinking string `json:"thinking,omitempty"`
}

// ParseSpec reads a spec, or an alias of one.
func ParseSpec(s string, aliases map[string]string) (Spec, error) {
	raw := s
	if a, ok := aliases[s]; ok {
		s = a
	}
	p := strings.Split(s, "/")
	sp := Spec{Raw: raw, Tool: p[0]}
	if _, err := agents.Parse(sp.Tool); err != nil {
		return Spec{}, fmt.Errorf("model spec %q: %w", raw, err)
	}
	switch len(p) {
	case 1:
	case 2:
		sp.Model = p[1]
	case 3:
		sp.Provider, sp.Model = p[1], p[2]
	case 4:
		sp.Provider, sp.Model, sp.Thinking = p[1], p[2], p[3]
	default:
		return Spec{}, fmt.Errorf("model spec %q: want tool/provider/model/thinking", raw)
	}
	return sp, nil
}

// ModelArg is the model as the tool takes it: some (opencode) name models
// provider/model, the others by model alone.
func (s Spec) ModelArg() string {
	if t, ok := agents.Lookup(s.Tool); ok && t.ModelWithProvider && s.Provider != "" && s.Model != "" {
		return s.Provider + "/" + s.Model
	}
	return s.Model
}

// ProviderKey names what a cooldown applies to: the provider when the spec
// names one, else the tool's model family.
func (s Spec) ProviderKey() string {
	if s.Provider != "" {
		return s.Provider
	}
	if t, ok := agents.Lookup(s.Tool); ok && t.Family != "" {
		return t.Family
	}
	return s.Tool
}

func (s Spec) String() string { return s.Raw }
