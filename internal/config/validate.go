package config

import (
	"fmt"
	"strings"
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
		if _, ok := LookupTool(t); !ok {
			bad(fmt.Sprintf("unknown tool %q (valid tools: %s)", t, strings.Join(ToolNames(), ", ")), "defaults", "tool")
		}
	}
	if c.Defaults.KillGrace <= 0 {
		bad(`must be a positive duration such as "5s"`, "defaults", "kill_grace")
	}
	for _, t := range Tools() {
		for k := range c.Tools.get(t.Name).Env {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				bad("not a valid environment variable name", "tools", t.Name, "env", k)
			}
		}
	}
	if n := c.GC.MaxAgeDays; n < 1 {
		bad(fmt.Sprintf("%d must be at least 1", n), "gc", "max_age_days")
	}
	if n := c.Output.MaxLogBytes; n < 1 {
		bad(fmt.Sprintf("%d must be at least 1", n), "output", "max_log_bytes")
	}
	return ps
}
