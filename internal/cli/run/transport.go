package run

import (
	"fmt"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/toolcache"
	"github.com/csa-dev/csa/internal/transport"
)

// acpArgs are the arguments of the tool's ACP agent when one runs:
// acp_path names the executable, the registry says how it speaks ACP.
func acpArgs(name, program string) []string {
	if s, ok := agents.Lookup(name); ok && s.ACP != nil && program != "" {
		return s.ACP.Args
	}
	return nil
}

// acpProgram resolves the run's transport (--transport, else the tool's
// transport setting) and returns the ACP agent to run, or "" for the CLI.
// auto takes ACP only when the tool has an installed ACP agent; acp
// without one is refused.
func (o *Options) acpProgram(name string, tc config.ToolConfig) (string, error) {
	var acpProg agents.Program
	if s, ok := agents.Lookup(name); ok && s.ACP != nil {
		acpProg = *s.ACP
	}
	choice := tc.Transport
	if o.Transport != "" {
		choice = o.Transport
	}
	switch choice {
	case "", transport.CLI:
		return "", nil
	case transport.Auto:
		if tc.ACPPath == "" {
			return "", nil
		}
		loc, err := toolcache.Locate(tc.ACPPath, acpProg)
		if err != nil {
			return "", nil
		}
		return loc.Path, nil
	case transport.ACP:
		if tc.ACPPath == "" {
			return "", cmdutil.Usagef("tool %s has no ACP agent: set [tools.%s] acp_path, or use --transport cli", name, name)
		}
		loc, err := toolcache.Locate(tc.ACPPath, acpProg)
		if err != nil {
			return "", cmdutil.Refused("tool_not_installed", fmt.Errorf(
				"the ACP agent of %s is not installed: %v; install it with `csa tools install --acp %s`, or set [tools.%s] acp_path in the config", name, err, name, name))
		}
		return loc.Path, nil
	}
	return "", cmdutil.Usagef("--transport %s: not one of cli, acp, auto", choice)
}
