package run

import (
	"fmt"
	"strings"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/toolcache"
)

// pickAuto chooses a tool of another model family than the caller's, never
// silently the same family: with none available the run is refused.
func pickAuto(cfg *config.Config, getenv func(string) string) (agents.Tool, error) {
	parent, _ := agents.DetectParent(getenv)
	avoid := ""
	if parent != "" {
		avoid = cfg.Family(parent)
	}
	var tried []string
	for _, t := range agents.All {
		tc := cfg.Tool(string(t))
		fam := cfg.Family(t)
		switch {
		case !tc.Enabled:
			tried = append(tried, string(t)+" (disabled)")
		case parent != "" && (fam == "" || fam == avoid):
			tried = append(tried, fmt.Sprintf("%s (family %s)", t, orUnknown(fam)))
		default:
			if _, err := toolcache.Locate(tc.Path, mustSpec(t).Program); err != nil {
				tried = append(tried, string(t)+" (not installed)")
				continue
			}
			return t, nil
		}
	}
	if parent == "" {
		return "", cmdutil.Refused("no_tool", fmt.Errorf("--tool auto: no tool is installed and enabled (%s)", strings.Join(tried, ", ")))
	}
	return "", cmdutil.Refused("no_heterogeneous_tool", fmt.Errorf(
		"--tool auto: no installed tool of another model family than the caller's %s (%s): %s",
		parent, avoid, strings.Join(tried, ", ")))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func mustSpec(t agents.Tool) *agents.Spec {
	s, _ := agents.Lookup(string(t))
	return s
}
