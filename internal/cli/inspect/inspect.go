// Package inspect implements `csa inspect`: the whole recorded state of one
// session.
package inspect

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/clustercmd"
	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cost"
	"github.com/csa-dev/csa/internal/events"
	"github.com/csa-dev/csa/internal/session"
)

// View is the JSON answer: the state plus where its files are.
type View struct {
	*session.State
	Dir   string            `json:"dir"`
	Files map[string]string `json:"files"`
	// Hooks are the session's hook and prompt guard events, in order.
	Hooks []events.Event `json:"hooks"`
	// What it cost, as csa ps --json gives it (internal/cost).
	cost.View
}

// addCost gives v what its session and its tree in store cost.
func (v *View) addCost(store *session.Store, prices cost.Table) {
	ents, _ := store.Summaries() // without the others, the tree is the session alone
	var others []*session.Summary
	for _, e := range ents {
		if e.Summary != nil {
			others = append(others, e.Summary)
		}
	}
	v.View = prices.ViewOf(v.State, others)
}

// costLines say what v cost, as TOML comments after its state file.
func (v *View) costLines(checked string) string {
	own := "no usage recorded"
	switch {
	case v.CostUSD != nil:
		own = fmt.Sprintf("%s (%s)", cost.Format(*v.CostUSD), strconv.FormatFloat(*v.CostUSD, 'f', -1, 64))
	case v.PriceUnknown:
		own = cost.Unknown + " for model " + strconv.Quote(cost.Model(v.Model, v.ProviderModel))
	}
	tree := "-"
	if v.TreeCostUSD != nil {
		tree = cost.Format(*v.TreeCostUSD)
	}
	switch v.TreeUnpriced {
	case 0:
	case 1:
		tree += " (and 1 session at " + cost.Unknown + ")"
	default:
		tree += fmt.Sprintf(" (and %d sessions at %s)", v.TreeUnpriced, cost.Unknown)
	}
	return fmt.Sprintf("# cost: %s; with its descendants: %s (list prices checked %s)\n", own, tree, checked)
}

// hookEvents are the hook and prompt_guard events of the file at path.
func hookEvents(path string) []events.Event {
	out := []events.Event{}
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	evs, _, _ := events.Read(f)
	for _, e := range evs {
		if e.Type == events.Hook || e.Type == events.PromptGuard {
			out = append(out, e)
		}
	}
	return out
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "inspect ID",
		Short: "Show the whole recorded state of a session",
		Long: `Show the whole recorded state of a session. A session this machine does not
hold is looked up on the cluster ([cluster] url): its record, the worker it runs
on, and (--json) its hook events.`,
		Args: cmdutil.ExactArgs(1, "a session id (see `csa ps`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, _, err := f.CwdStore()
			if err != nil {
				return err
			}
			id, err := store.Resolve(args[0])
			var nf *session.NotFoundError
			if errors.As(err, &nf) {
				if _, ok := clustercmd.Configured(f); ok {
					// Not here: a remote session's record, from csa-cluster.
					a := []string{"inspect"}
					if f.JSON {
						a = append(a, "--json")
					}
					return clustercmd.HandOver(append(a, "--", args[0])...)
				}
			}
			if err != nil {
				return err
			}
			st, err := f.Current(cmd.Context(), store, id)
			if err != nil {
				return err
			}
			files := map[string]string{}
			for _, n := range []string{session.StateFile, session.OutputFile, session.StderrFile, session.EventsFile, session.PromptFile} {
				if _, err := os.Stat(store.Path(id, n)); err == nil {
					files[n] = store.Path(id, n)
				}
			}
			v := View{State: st, Dir: store.Dir(id), Files: files, Hooks: hookEvents(store.Path(id, session.EventsFile))}
			prices := f.PricesOrBuiltIn()
			v.addCost(store, prices)
			if f.JSON {
				return f.IO.PrintJSON(v)
			}
			data, err := os.ReadFile(store.Path(id, session.StateFile))
			if err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "# %s\n%s%s", store.Dir(id), data, v.costLines(prices.Checked))
			return nil
		},
	}
}
