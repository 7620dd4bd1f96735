// Package tools implements `csa tools`: every tool, installed or not.
package tools

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
)

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "tools",
		Short: "List every tool with its program, version and model family",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			l, _, err := f.CwdConfig()
			if err != nil {
				return err
			}
			ts := cmdutil.ProbeTools(&l.Config)
			if f.JSON {
				return f.IO.PrintJSON(ts)
			}
			tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TOOL\tFAMILY\tINSTALLED\tENABLED\tVERSION\tPATH")
			for _, t := range ts {
				fam, path := t.Family, t.Path
				if fam == "" {
					fam = "(by model)"
				}
				if !t.Installed {
					path = t.Install
				}
				fmt.Fprintf(tw, "%s\t%s\t%v\t%v\t%s\t%s\n", t.Name, fam, t.Installed, t.Enabled, t.Version, path)
			}
			return tw.Flush()
		},
	}
}
