// Package gc implements `csa gc`: remove orphaned and stale sessions.
package gc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/resource"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
)

// Options are the flags of `csa gc`.
type Options struct {
	F          *cmdutil.Factory
	DryRun     bool
	MaxAgeDays int
	Global     bool
	Branches   bool
	ageSet     bool
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	o := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "gc [--dry-run] [--max-age-days N] [--global] [--branches]",
		Short: "Remove orphaned sessions and sessions older than the age limit",
		Long: `Remove orphaned sessions (missing or unreadable state, a parent that no longer
exists, a supervisor that died) and ended sessions older than --max-age-days
(default: gc.max_age_days, 30). Running sessions and the calling session's
lineage are never removed.

csa-* cgroups that outlived their run are removed too. A group held by a
live run of any state directory, or with processes in it, is kept (--json
lists it under cgroups_kept, with the reason).

So are a cluster worker's scratch trees (STATE_DIR/cluster-trees) that it left
behind: one no run started in after 10 minutes, any other (its worker lost, or
kept because its diff could not be stored) when older than the age limit;
never one a live run works in (--json: scratch_trees).

And the worktree folders of ended csa run --worktree sessions whose change is
committed on their branch (--keep-worktree ones included) or whose session is
gone, then git worktree prune in their repositories; never a folder whose
change is not recorded yet (--json: worktrees). Their branches are deleted
once the change is in the repository's HEAD (merged by csa merge, by any
strategy, or by hand), or with --branches even when it is not; a branch that
moved past the change csa recorded, or is checked out, stays (--json:
branches). csa diff ID still shows the change while git keeps its commits
(git gc prunes unreferenced ones after two weeks, by default).

And the overlap radar's reports (STATE_DIR/projects/SLUG/radar/ID) that runs
whose supervisor is gone left behind (a killed supervisor cannot withdraw its
run's report); a live run's report is kept (--json: radar_reports).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.ageSet = cmd.Flags().Changed("max-age-days")
			return Run(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVarP(&o.DryRun, "dry-run", "n", false, "only list what would be removed")
	cmd.Flags().IntVar(&o.MaxAgeDays, "max-age-days", 0, "remove ended sessions older than this many days")
	cmd.Flags().BoolVar(&o.Global, "global", false, "collect every project under the state directory")
	cmd.Flags().BoolVar(&o.Branches, "branches", false, "delete the branches of ended worktree runs whose change is not merged too")
	return cmd
}

// Item is one removal (or would-be removal).
type Item struct {
	ID      string `json:"id"`
	Project string `json:"project"`
	Reason  string `json:"reason"`
}

// youngDir protects a directory being created right now from looking like
// an orphan with no state.
const youngDir = time.Minute

// Run collects garbage.
func Run(ctx context.Context, o *Options) error {
	root, err := o.F.ProjectRoot(".")
	if err != nil {
		return err
	}
	maxAge := o.MaxAgeDays
	if !o.ageSet {
		cfg, err := o.F.Config(root)
		if err != nil {
			return err
		}
		maxAge = cfg.Config.GC.MaxAgeDays
	}
	if maxAge < 0 {
		return cmdutil.Usagef("--max-age-days cannot be negative")
	}
	cutoff := o.F.Now().Add(-time.Duration(maxAge) * 24 * time.Hour)
	var stores []*session.Store
	if o.Global {
		all, err := o.F.AllStores()
		if err != nil {
			return err
		}
		stores = all
	} else {
		s, err := o.F.Store(root)
		if err != nil {
			return err
		}
		stores = append(stores, s)
	}
	var items []Item
	var worktrees, reports []Tree
	var branches []Branch
	var errs []error
	for _, s := range stores {
		wts, werrs := o.collectWorktrees(ctx, s)
		worktrees = append(worktrees, wts...)
		errs = append(errs, werrs...)
		brs, berrs := o.collectBranches(ctx, s)
		branches = append(branches, brs...)
		errs = append(errs, berrs...)
		found, err := o.collect(ctx, s, cutoff)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, it := range found {
			if !o.DryRun {
				if err := s.Remove(it.ID); err != nil {
					errs = append(errs, err)
					continue
				}
			}
			items = append(items, it)
		}
		rs, rerr := o.collectRadar(s)
		reports = append(reports, rs...)
		errs = append(errs, rerr)
	}
	groups, kept, gerrs := o.collectGroups()
	errs = append(errs, gerrs...)
	trees, terrs := o.collectTrees(cutoff)
	errs = append(errs, terrs...)
	if err := o.print(items, groups, kept, trees, worktrees, reports, branches); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// Cgroup is a csa-* group gc left alone, and why.
type Cgroup struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	live   bool
}

// collectGroups removes the csa-* cgroups that runs left behind: the
// supervisor died before it could remove its group. (systemd scopes are
// created with --collect: systemd removes them itself.) A group is only
// removed when it is an orphan: no csa supervisor of any state directory
// holds it, no process is in it, and it is not being set up. A group that
// still has processes is never touched: it may be another state
// directory's live run.
func (o *Options) collectGroups() (removed []string, kept []Cgroup, errs []error) {
	stores, err := o.F.AllStores()
	if err != nil {
		return nil, nil, []error{err}
	}
	now := o.F.Now()
	for _, g := range resource.Leftovers(o.F.Capabilities()) {
		var err error = &resource.InUseError{Dir: g.Dir, Reason: "a live csa run holds it", Live: true}
		if !supervised(stores, g.ID) {
			if o.DryRun {
				err = resource.CheckOrphan(g.Dir, youngGroup, now)
			} else {
				err = resource.RemoveOrphan(g.Dir, youngGroup, now)
			}
		}
		var inUse *resource.InUseError
		switch {
		case err == nil:
			removed = append(removed, g.Dir)
		case errors.As(err, &inUse):
			kept = append(kept, Cgroup{Path: g.Dir, Reason: inUse.Reason, live: inUse.Live})
		case errors.Is(err, os.ErrNotExist):
			// its run has just removed it
		default:
			errs = append(errs, err)
		}
	}
	sort.Strings(removed)
	sort.Slice(kept, func(i, j int) bool { return kept[i].Path < kept[j].Path })
	return removed, kept, errs
}

// youngGroup protects a group being made right now, before its run holds
// its lock, from looking like an orphan.
const youngGroup = time.Minute

// supervised reports whether a supervisor of this state directory runs
// the session id (one of a csa that does not lock its groups included).
func supervised(stores []*session.Store, id string) bool {
	for _, s := range stores {
		if s.SupervisorAlive(id) {
			return true
		}
	}
	return false
}

func (o *Options) collect(ctx context.Context, s *session.Store, cutoff time.Time) ([]Item, error) {
	ents, err := s.List()
	if err != nil {
		return nil, err
	}
	project := projectOf(s)
	protected := map[string]bool{}
	if self := o.F.Getenv(csaenv.SessionID); self != "" {
		protected[self] = true
		for _, a := range s.Ancestors(self) {
			protected[a] = true
		}
	}
	present := map[string]bool{}
	for _, e := range ents {
		present[e.ID] = true
	}
	now := o.F.Now()
	var items []Item
	for _, e := range ents {
		if protected[e.ID] {
			continue
		}
		add := func(why string) { items = append(items, Item{ID: e.ID, Project: project, Reason: why}) }
		if e.Err != nil {
			if fi, err := os.Stat(s.Dir(e.ID)); err == nil && now.Sub(fi.ModTime()) > youngDir {
				add("orphan: " + e.Err.Error())
			}
			continue
		}
		st := e.State
		if !st.Status.Ended() {
			st = runner.Reconcile(ctx, s, st, now)
			if st.Status == session.Crashed {
				add("orphan: supervisor died")
			}
			continue
		}
		switch {
		case st.ParentID != "" && !present[st.ParentID]:
			add(fmt.Sprintf("orphan: parent %s no longer exists", st.ParentID))
		case lastActive(st).Before(cutoff):
			add(fmt.Sprintf("stale: inactive since %s", lastActive(st).Format(time.DateOnly)))
		}
	}
	return items, nil
}

func lastActive(st *session.State) time.Time {
	if !st.EndedAt.IsZero() {
		return st.EndedAt
	}
	return st.CreatedAt
}

func projectOf(s *session.Store) string {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(s.Root()), cmdutil.ProjectMarker))
	if err != nil {
		return filepath.Base(filepath.Dir(s.Root()))
	}
	return string(trimNL(b))
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

func (o *Options) print(items []Item, groups []string, kept []Cgroup, trees, worktrees, reports []Tree, branches []Branch) error {
	if o.F.JSON {
		if items == nil {
			items = []Item{}
		}
		if groups == nil {
			groups = []string{}
		}
		if kept == nil {
			kept = []Cgroup{}
		}
		if trees == nil {
			trees = []Tree{}
		}
		if worktrees == nil {
			worktrees = []Tree{}
		}
		if reports == nil {
			reports = []Tree{}
		}
		if branches == nil {
			branches = []Branch{}
		}
		return o.F.IO.PrintJSON(map[string]any{"dry_run": o.DryRun, "removed": items, "cgroups": groups, "cgroups_kept": kept,
			"scratch_trees": trees, "worktrees": worktrees, "radar_reports": reports, "branches": branches})
	}
	verb := "removed"
	if o.DryRun {
		verb = "would remove"
	}
	for _, it := range items {
		fmt.Fprintf(o.F.IO.Out, "%s %s (%s)\n", verb, it.ID, it.Reason)
	}
	for _, g := range groups {
		fmt.Fprintf(o.F.IO.Out, "%s cgroup %s (orphaned)\n", verb, g)
	}
	for _, t := range trees {
		fmt.Fprintf(o.F.IO.Out, "%s scratch tree %s (%s)\n", verb, t.Path, t.Reason)
	}
	for _, t := range worktrees {
		fmt.Fprintf(o.F.IO.Out, "%s worktree %s (%s)\n", verb, t.Path, t.Reason)
	}
	for _, t := range reports {
		fmt.Fprintf(o.F.IO.Out, "%s radar report %s (%s)\n", verb, t.Path, t.Reason)
	}
	del := "deleted"
	if o.DryRun {
		del = "would delete"
	}
	for _, b := range branches {
		fmt.Fprintf(o.F.IO.Out, "%s branch %s of %s (%s)\n", del, b.Branch, b.ID, b.Reason)
	}
	for _, k := range kept {
		// A live run's group is nothing to report; processes that no
		// run holds may be a leak.
		if !k.live {
			fmt.Fprintf(o.F.IO.Out, "kept cgroup %s (%s)\n", k.Path, k.Reason)
		}
	}
	fmt.Fprintf(o.F.IO.ErrOut, "csa gc: %s %d sessions\n", verb, len(items))
	return nil
}
