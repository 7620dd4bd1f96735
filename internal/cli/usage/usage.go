// Package usage implements `csa usage`: the tokens and cost of a
// project's sessions (every project's with --all), by day, tool, model or
// project.
package usage

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cost"
	"github.com/csa-dev/csa/internal/session"
)

// Options are the flags of `csa usage`.
type Options struct {
	F     *cmdutil.Factory
	Since string
	By    string
	All   bool
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	o := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "usage [--since DATE|DURATION] [--by day|tool|model|project] [--all]",
		Short: "Sum the tokens and cost of this project's sessions (every project's with --all)",
		Long: `Sum the tokens and cost of this project's sessions (every project's with --all),
by day (the default), tool, model or project. Costs come from each session's
recorded usage and its model's price: csa's built-in list prices, under the
configuration's [prices."MODEL"] tables. Sessions of a model without a price
are counted apart, as "price unknown", never priced by a guess. --since takes
a date (2026-11-01, from local midnight) or a duration back from now (36h,
7d).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return Run(o) },
	}
	cmd.Flags().StringVar(&o.Since, "since", "", "only sessions created since a date (YYYY-MM-DD) or for a duration (24h, 7d)")
	cmd.Flags().StringVar(&o.By, "by", string(cost.ByDay), "group by day, tool, model or project")
	cmd.Flags().BoolVarP(&o.All, "all", "a", false, "sum the sessions of every project")
	// csa gc names every project --global.
	cmd.Flags().BoolVar(&o.All, "global", false, "the same as --all")
	return cmd
}

// Run prints the report.
func Run(o *Options) error {
	by, err := cost.ParseBy(o.By)
	if err != nil {
		return cmdutil.Usagef("%v", err)
	}
	now := o.F.Now()
	since, err := parseSince(o.Since, now)
	if err != nil {
		return cmdutil.Usagef("%v", err)
	}
	prices, err := o.F.Prices()
	if err != nil {
		return err
	}
	sums, err := o.load()
	if err != nil {
		return err
	}
	r := prices.Report(sums, by, since, time.Local)
	if o.F.JSON {
		return o.F.IO.PrintJSON(r)
	}
	print(o.F.IO.Out, r)
	return nil
}

// parseSince reads --since: a local date, or a duration back from now
// with days ("7d") besides Go's units.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, time.Local); err == nil {
		return t, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if days, err := strconv.Atoi(n); err == nil && days >= 0 {
			return now.AddDate(0, 0, -days), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q is neither a date (2026-11-01) nor a duration (36h, 7d)", s)
}

// load reads the sessions' summaries, which hold their usage; broken
// records are counted on stderr, as csa ps does.
func (o *Options) load() ([]*session.Summary, error) {
	var stores []*session.Store
	if o.All {
		all, err := o.F.AllStores()
		if err != nil {
			return nil, err
		}
		stores = all
	} else {
		s, _, err := o.F.CwdStore()
		if err != nil {
			return nil, err
		}
		stores = append(stores, s)
	}
	var out []*session.Summary
	broken := 0
	for _, s := range stores {
		ents, err := s.Summaries()
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			switch {
			case e.Summary != nil:
				out = append(out, e.Summary)
			case e.Err != nil && !errors.Is(e.Err, session.ErrStarting):
				broken++
			}
		}
	}
	if broken > 0 {
		fmt.Fprintf(o.F.IO.ErrOut, "csa: %d session records could not be read (see `csa gc --dry-run`)\n", broken)
	}
	return out, nil
}

// print writes the report as a table, a line per group and the total.
func print(w io.Writer, r cost.Report) {
	head := []string{strings.ToUpper(string(r.By)), "SESSIONS", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "TOTAL TOKENS", "COST"}
	cells := [][]string{head}
	for _, l := range append(r.Lines, r.Total) {
		cells = append(cells, []string{l.Key, strconv.Itoa(l.Sessions), num(l.Input), num(l.Output), num(l.CacheRead),
			num(l.CacheWrite), num(l.TotalTokens), costCell(l)})
	}
	width := make([]int, len(head))
	for _, c := range cells {
		for i, v := range c {
			width[i] = max(width[i], len(v))
		}
	}
	for _, c := range cells {
		var b strings.Builder
		for i, v := range c {
			if i > 0 {
				b.WriteString("  ")
			}
			if i == 0 || i == len(c)-1 {
				b.WriteString(v + strings.Repeat(" ", width[i]-len(v)))
			} else { // numbers right-aligned
				b.WriteString(strings.Repeat(" ", width[i]-len(v)) + v)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	fmt.Fprintf(w, "list prices checked %s; override them in [prices.\"MODEL\"] (docs/cost.md)\n", r.Checked)
}

// costCell is a group's cost, with the sessions whose price is unknown
// said apart.
func costCell(l cost.Line) string {
	sessions := "sessions"
	if l.Unpriced == 1 {
		sessions = "session"
	}
	unknown := fmt.Sprintf("%s for %d %s (%s)", cost.Unknown, l.Unpriced, sessions, strings.Join(l.UnpricedModels, ", "))
	switch {
	case l.CostUSD == nil && l.Unpriced > 0:
		return unknown
	case l.CostUSD == nil:
		return "-"
	case l.Unpriced > 0:
		return cost.Format(*l.CostUSD) + " + " + unknown
	}
	return cost.Format(*l.CostUSD)
}

func num(n int64) string { return strconv.FormatInt(n, 10) }
