package cli

import (
	"fmt"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/llm/providers"
	"github.com/csa-dev/csa/internal/csaagent/skills"
)

// window1M is the context window "[1m]" asks for.
const window1M = 1_000_000

// homeModel is what a model given as an alias or "inherit" is taken
// against: the next model configured after the one given (--model, then
// $CSA_AGENT_MODEL, then the config's), so that an alias picks a model of
// the provider the user set csa-agent up with.
func homeModel(configured []string) string {
	for i, m := range configured {
		if m != "" {
			return firstOf(configured[i+1:]...)
		}
	}
	return ""
}

// choose resolves the model spec of an agent definition or a skill
// against the session's model, its provider retrying as the session's.
func (s *session) choose(spec string) (providers.Choice, error) {
	c, err := providers.Choose(spec, s.chosen, s.conf, s.io.Getenv)
	if err != nil {
		return c, err
	}
	c.Provider = &llm.Retrying{Provider: c.Provider, MaxRetries: s.retries, OnRetry: s.onRetry}
	return c, nil
}

// useSkillModel makes the rest of the turn run on a skill's model, as
// Claude Code runs a skill or command with a model of its own; turn puts
// the session's back. A model that cannot be used is named on stderr and
// the session's goes on, as in Claude Code.
func (s *session) useSkillModel(sk skills.Skill) {
	if sk.Model == "" {
		return
	}
	c, err := s.choose(sk.Model)
	if err != nil {
		fmt.Fprintf(s.io.Stderr, "csa-agent: skill %s: model %q: %v; the session's model goes on\n", sk.Name, sk.Model, err)
		return
	}
	s.agent.Use(c.Provider, c.Model)
}

// skillLoaded applies a skill the Skill tool loaded: its allowed-tools and
// its model hold for the rest of the turn.
func (s *session) skillLoaded(sk skills.Skill) {
	if len(sk.AllowedTools) > 0 {
		s.policy.Grant(sk.AllowedTools)
	}
	s.useSkillModel(sk)
}
