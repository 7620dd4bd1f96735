// Package tiers implements `csa tiers`: the configured tiers, their models
// and which providers are cooling down.
package tiers

import (
	"fmt"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/scheduler"
)

// Model is one model spec of a tier.
type Model struct {
	scheduler.Spec
	CoolingUntil *time.Time `json:"cooling_until"`
}

// Tier is one tier in the JSON answer.
type Tier struct {
	Name     string   `json:"name"`
	Strategy string   `json:"strategy"`
	Fallback []string `json:"fallback"`
	Models   []Model  `json:"models"`
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "tiers",
		Short: "List the configured tiers, their model specs and provider cooldowns",
		Long: `List the configured tiers, their model specs and the providers cooling down.
With no tiers configured it says so on standard error and exits 0 (--json: []).`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			l, _, err := f.CwdConfig()
			if err != nil {
				return err
			}
			cool, err := scheduler.New(f.StateDir(), f.Now).Cooldowns()
			if err != nil {
				return err
			}
			var out []Tier
			for name, t := range l.Config.Tiers {
				tier := Tier{Name: name, Strategy: t.Strategy, Fallback: t.Fallback}
				if tier.Strategy == "" {
					tier.Strategy = "priority"
				}
				if tier.Fallback == nil {
					tier.Fallback = []string{}
				}
				for _, m := range t.Models {
					sp, err := scheduler.ParseSpec(m, l.Config.Aliases)
					if err != nil {
						return err
					}
					mm := Model{Spec: sp}
					if until, ok := cool[sp.ProviderKey()]; ok {
						mm.CoolingUntil = &until
					}
					tier.Models = append(tier.Models, mm)
				}
				out = append(out, tier)
			}
			sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
			if f.JSON {
				if out == nil {
					out = []Tier{}
				}
				return f.IO.PrintJSON(out)
			}
			if len(out) == 0 {
				// Nothing to list is not an error: a note, exit 0.
				fmt.Fprintln(f.IO.ErrOut, "no tiers configured (add a [tiers.NAME] table to the config; csa init writes an example)")
			}
			for _, t := range out {
				fmt.Fprintf(f.IO.Out, "%s (%s)", t.Name, t.Strategy)
				if len(t.Fallback) > 0 {
					fmt.Fprintf(f.IO.Out, " then %v", t.Fallback)
				}
				fmt.Fprintln(f.IO.Out)
				for _, m := range t.Models {
					note := ""
					if m.CoolingUntil != nil {
						note = "  cooling down until " + m.CoolingUntil.Local().Format("15:04:05")
					}
					fmt.Fprintf(f.IO.Out, "  %s%s\n", m.Raw, note)
				}
			}
			return nil
		},
	}
}
