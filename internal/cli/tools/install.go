package tools

import (
	"fmt"
	"sync"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/toolcache"
)

// installOptions are the flags of `csa tools install`.
type installOptions struct {
	F     *cmdutil.Factory
	Names []string
	ACP   bool
}

func newInstallCmd(f *cmdutil.Factory) *cobra.Command {
	o := &installOptions{F: f}
	cmd := &cobra.Command{
		Use:   "install [NAME...] [--acp]",
		Short: "Install the pinned versions of the agent programs into csa's cache",
		Long: `Install the versions of the agent programs that csa pins (and is tested with)
into csa's cache of pinned programs ($CSA_AGENTS_CACHE, else ~/.cache/csa/agents),
with npm. NAME is a tool (` + agents.Names() + `); without one, every tool.
--acp also installs each named tool's ACP agent (claude-code-acp, codex-acp).
An install already at the pinned version is left as it is. csa-agent is not
an npm package but built with csa (make build, make install put it beside
csa): it is skipped with a note, never failed.

csa finds a tool's program at its configured path, else on PATH, else in this
cache, so nothing needs configuring afterwards.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Names = args
			return o.run(cmd)
		},
	}
	cmd.Flags().BoolVar(&o.ACP, "acp", false, "also install the tools' ACP agents")
	return cmd
}

func (o *installOptions) run(cmd *cobra.Command) error {
	specs := agents.Registry
	if len(o.Names) > 0 {
		specs = nil
		for _, n := range o.Names {
			s, ok := agents.Lookup(n)
			if !ok {
				return &agents.UnknownToolError{Name: n}
			}
			specs = append(specs, s)
		}
	}
	var programs []agents.Program
	for _, s := range specs {
		programs = append(programs, s.Program)
		if o.ACP && s.ACP != nil && s.ACP.Name != s.Program.Name {
			programs = append(programs, *s.ACP)
		}
	}
	var mu sync.Mutex
	say := func(program, msg string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(o.F.IO.ErrOut, "%s: %s\n", program, msg)
	}
	res, err := toolcache.Install(cmd.Context(), programs, say)
	if o.F.JSON && res != nil {
		if perr := o.F.IO.PrintJSON(map[string]any{"installed": res}); perr != nil {
			return perr
		}
	}
	if err != nil {
		if res == nil {
			return cmdutil.Refused("npm_missing", err)
		}
		return fmt.Errorf("%d of %d installs failed: %w", failed(res), len(res), err)
	}
	return nil
}

func failed(res []toolcache.Installed) int {
	n := 0
	for _, r := range res {
		if r.Error != "" {
			n++
		}
	}
	return n
}
