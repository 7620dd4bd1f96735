// Package tools implements `csa tools`: every tool, installed or not, and
// `csa tools install`, which installs the pinned versions.
package tools

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
)

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List every tool with its program, where it was found, its version and model family",
		Long: `List every tool csa can run: its model family, whether it is installed and
enabled, its version (a program of its npm package: the package's, read from
its package.json; any other: its --version), as csa doctor reports it, and the
version csa pins, and where its program was
found: config (a path set in tools.NAME.path), PATH, or cache (csa's cache of
pinned programs, filled by csa tools install); csa-agent, csa's own agent
program, is built with csa and found beside csa's executable ("built with
csa"), else on PATH.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, _, err := f.CwdConfig()
			if err != nil {
				return err
			}
			ts := cmdutil.ProbeTools(cmd.Context(), &l.Config)
			if f.JSON {
				return f.IO.PrintJSON(ts)
			}
			tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TOOL\tFAMILY\tINSTALLED\tENABLED\tVERSION\tPINNED\tFROM\tPATH")
			for _, t := range ts {
				fam, path, from := t.Family, t.Path, t.Source
				if fam == "" {
					fam = "(by model)"
				}
				if !t.Installed {
					path, from = t.Install, "-"
				}
				pinned := t.Pinned
				if t.BuiltWithCSA {
					pinned = "with csa"
				}
				fmt.Fprintf(tw, "%s\t%s\t%v\t%v\t%s\t%s\t%s\t%s\n", t.Name, fam, t.Installed, t.Enabled, orDash(t.Version), pinned, from, path)
			}
			return tw.Flush()
		},
	}
	cmd.AddCommand(newInstallCmd(f))
	return cmd
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
