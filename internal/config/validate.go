package config

import (
	"fmt"
	"strings"

	"github.com/csa-dev/csa/internal/resource"
	sb "github.com/csa-dev/csa/internal/sandbox"
	"github.com/csa-dev/csa/internal/transport"
	"github.com/csa-dev/csa/internal/workspace"
)

// Limits of max_recursion_depth.
const (
	MinRecursionDepth = 0
	MaxRecursionDepth = 100
)

// validate checks the rules a value's type cannot express. Types and
// unknown keys are the decoder's business; durations check themselves.
func (c *Config) validate() []problem {
	var ps []problem
	bad := func(detail string, key ...string) {
		ps = append(ps, problem{KindValue, key, detail})
	}
	if d := c.MaxRecursionDepth; d < MinRecursionDepth || d > MaxRecursionDepth {
		bad(fmt.Sprintf("%d is out of range %d..%d", d, MinRecursionDepth, MaxRecursionDepth), "max_recursion_depth")
	}
	if t := c.Defaults.Tool; t != "" {
		if !knownTool(t) {
			bad(fmt.Sprintf("unknown tool %q (valid tools: %s)", t, toolNames()), "defaults", "tool")
		}
	}
	for key, d := range map[string]Duration{"grace": c.Interactive.Grace, "quiet": c.Interactive.Quiet, "stuck_after": c.Interactive.StuckAfter} {
		if d <= 0 {
			bad(`must be a positive duration such as "5s"`, "interactive", key)
		}
	}
	if w := c.Interactive.Width; w < 20 || w > 1000 {
		bad(fmt.Sprintf("%d is out of range 20..1000", w), "interactive", "width")
	}
	if h := c.Interactive.Height; h < 5 || h > 500 {
		bad(fmt.Sprintf("%d is out of range 5..500", h), "interactive", "height")
	}
	if err := workspace.CheckTemplate(c.Defaults.WorktreeBranch); err != nil {
		bad(err.Error(), "defaults", "worktree_branch")
	}
	if c.Defaults.KillGrace <= 0 {
		bad(`must be a positive duration such as "5s"`, "defaults", "kill_grace")
	}
	for _, name := range c.Tools.toolKeys() {
		tc := c.Tools[name]
		if !knownTool(name) {
			ps = append(ps, problem{kind: KindUnknownKey, key: []string{"tools", name}})
			continue
		}
		switch tc.Transport {
		case transport.CLI, transport.Auto:
		case transport.ACP:
			if tc.ACPPath == "" {
				bad(fmt.Sprintf("%s has no ACP agent: set acp_path, or use \"cli\"", name), "tools", name, "transport")
			}
		default:
			bad(fmt.Sprintf("%q is not one of cli, acp, auto", tc.Transport), "tools", name, "transport")
		}
		for k := range tc.Env {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				bad("not a valid environment variable name", "tools", name, "env", k)
			}
		}
		if t := tc.WorktreeBranch; t != "" {
			if err := workspace.CheckTemplate(t); err != nil {
				bad(err.Error(), "tools", name, "worktree_branch")
			}
		}
	}
	if n := c.GC.MaxAgeDays; n < 1 {
		bad(fmt.Sprintf("%d must be at least 1", n), "gc", "max_age_days")
	}
	if n := c.Output.MaxLogBytes; n < 1 {
		bad(fmt.Sprintf("%d must be at least 1", n), "output", "max_log_bytes")
	}
	ps = append(ps, validateResources(c.Resources.EnforcementMode, c.Resources.Sandbox, "resources")...)
	if m, err := sb.ParseMode(c.Sandbox.Mode); err != nil || m != c.Sandbox.Mode {
		bad(fmt.Sprintf("%q is not one of %s", c.Sandbox.Mode, strings.Join(sb.Modes, ", ")), "sandbox", "mode")
	}
	if err := sb.CheckHosts(c.Sandbox.AllowHosts); err != nil {
		bad(err.Error(), "sandbox", "allow_hosts")
	}
	for name, t := range c.Tiers {
		if len(t.Models) == 0 {
			bad("a tier needs at least one model spec", "tiers", name, "models")
		}
		switch t.Strategy {
		case "", "priority", "round-robin":
		default:
			bad(fmt.Sprintf("%q is not one of priority, round-robin", t.Strategy), "tiers", name, "strategy")
		}
		for _, m := range t.Models {
			spec := m
			if a, ok := c.Aliases[m]; ok {
				spec = a
			}
			tool, _, _ := strings.Cut(spec, "/")
			if !knownTool(tool) {
				bad(fmt.Sprintf("model spec %q does not start with a tool (valid tools: %s)", m, toolNames()), "tiers", name, "models")
			}
		}
		for _, f := range t.Fallback {
			if _, ok := c.Tiers[f]; !ok || f == name {
				bad(fmt.Sprintf("fallback %q is not another tier", f), "tiers", name, "fallback")
			}
		}
	}
	for a, spec := range c.Aliases {
		tool, _, _ := strings.Cut(spec, "/")
		if !knownTool(tool) {
			bad(fmt.Sprintf("model spec %q does not start with a tool", spec), "aliases", a)
		}
	}
	if c.Failover.Retries < 0 || c.Failover.Retries > 10 {
		bad(fmt.Sprintf("%d is out of range 0..10", c.Failover.Retries), "failover", "retries")
	}
	if n := c.Failover.AgentRetries; n < 0 || n > 20 {
		bad(fmt.Sprintf("%d is out of range 0..20", n), "failover", "agent_retries")
	}
	switch c.Review.Consensus {
	case "majority", "unanimous", "weighted":
	default:
		bad(fmt.Sprintf("%q is not one of majority, unanimous, weighted", c.Review.Consensus), "review", "consensus")
	}
	if n := c.Review.Reviewers; n < 1 || n > 8 {
		bad(fmt.Sprintf("%d is out of range 1..8", n), "review", "reviewers")
	}
	for k, w := range c.Review.Weights {
		if w < 0 {
			bad(fmt.Sprintf("%v cannot be negative", w), "review", "weights", k)
		}
	}
	ps = append(ps, c.validateMCP()...)
	ps = append(ps, c.validatePrices()...)
	ps = append(ps, c.validateCluster()...)
	r := c.Resources
	for k, v := range map[string]int64{"memory_max_mb": r.MemoryMaxMB, "memory_swap_max_mb": r.MemorySwapMaxMB, "pids_max": r.PidsMax, "min_free_memory_mb": r.MinFreeMemoryMB} {
		if v < 0 {
			bad(fmt.Sprintf("%d cannot be negative (0 for none)", v), "resources", k)
		}
	}
	if r.SampleInterval < 0 {
		bad("must be a positive duration", "resources", "sample_interval")
	}
	for k, v := range r.InitialEstimates {
		if !knownTool(k) {
			bad(fmt.Sprintf("unknown tool %q (valid tools: %s)", k, toolNames()), "resources", "initial_estimates", k)
		} else if v <= 0 {
			bad(fmt.Sprintf("%d must be positive", v), "resources", "initial_estimates", k)
		}
	}
	for _, name := range c.Tools.toolKeys() {
		tc := c.Tools[name]
		if !knownTool(name) {
			continue
		}
		if tc.MaxConcurrent < 0 {
			bad(fmt.Sprintf("%d cannot be negative (0 for no bound)", tc.MaxConcurrent), "tools", name, "max_concurrent")
		}
		o := tc.Resources
		mode, sandbox := "", ""
		if o.EnforcementMode != nil {
			mode = *o.EnforcementMode
		}
		if o.Sandbox != nil {
			sandbox = *o.Sandbox
		}
		ps = append(ps, validateResources(mode, sandbox, "tools", name, "resources")...)
		if _, err := sb.ParseIsolate(tc.Isolate); tc.Isolate != "" && err != nil {
			bad(err.Error(), "tools", name, "isolate")
		}
		for k, v := range map[string]*int64{"memory_max_mb": o.MemoryMaxMB, "memory_swap_max_mb": o.MemorySwapMaxMB, "pids_max": o.PidsMax} {
			if v != nil && *v < 0 {
				bad(fmt.Sprintf("%d cannot be negative (0 for none)", *v), "tools", name, "resources", k)
			}
		}
	}
	return ps
}

// validateResources checks an enforcement mode and a sandbox layer ("" is
// unset and fine).
func validateResources(mode, sandbox string, key ...string) []problem {
	var ps []problem
	if _, err := resource.ParseMode(mode); mode != "" && (err != nil || mode != canonical(mode)) {
		ps = append(ps, problem{KindValue, append(key[:len(key):len(key)], "enforcement_mode"),
			fmt.Sprintf("%q is not one of %s", mode, strings.Join(resource.Modes, ", "))})
	}
	if _, err := resource.ParseLayer(sandbox); sandbox != "" && err != nil {
		ps = append(ps, problem{KindValue, append(key[:len(key):len(key)], "sandbox"), err.Error()})
	}
	return ps
}

// canonical is an enforcement mode as the file must spell it.
func canonical(mode string) string {
	m, _ := resource.ParseMode(mode)
	return m
}
