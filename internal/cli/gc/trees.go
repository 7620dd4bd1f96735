package gc

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/statedir"
)

// Tree is a cluster worker's scratch tree gc removed (or would), and why.
type Tree struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// unstartedTree protects a tree being checked out right now (its run not
// started yet) from looking like an orphan: a big repository's checkout
// takes a while.
const unstartedTree = 10 * time.Minute

// collectTrees removes the scratch trees a worker left: it removes each
// when its run has ended, so one that is still here belonged to a worker
// that was lost, or was kept because its diff could not be stored (the
// agent's work is only there). A tree a live local run works in is never
// removed; one no run ever started in goes after unstartedTree; any other
// only when it is older than the age limit, as ended sessions are.
func (o *Options) collectTrees(cutoff time.Time) ([]Tree, []error) {
	dir := statedir.ScratchTrees(o.F.Getenv)
	ents, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, []error{err}
	}
	stores, err := o.F.AllStores()
	if err != nil {
		return nil, []error{err}
	}
	// Which trees local runs worked in, and whether one still does.
	now := o.F.Now()
	used, live := map[string]bool{}, map[string]bool{}
	for _, s := range stores {
		list, err := s.List()
		if err != nil {
			continue
		}
		for _, e := range list {
			if e.State == nil {
				continue
			}
			rel, err := filepath.Rel(dir, e.State.Cwd)
			if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
				continue
			}
			tree := strings.Split(rel, string(filepath.Separator))[0]
			used[tree] = true
			starting := !e.State.Status.Ended() && now.Sub(e.State.CreatedAt) < youngDir
			if starting || s.SupervisorAlive(e.ID) {
				live[tree] = true
			}
		}
	}
	var out []Tree
	var errs []error
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil || !e.IsDir() || live[e.Name()] {
			continue
		}
		why := ""
		switch {
		case fi.ModTime().Before(cutoff):
			why = "stale: untouched since " + fi.ModTime().Format(time.DateOnly)
		case !used[e.Name()] && now.Sub(fi.ModTime()) > unstartedTree:
			why = "orphan: no run started in it"
		default:
			continue
		}
		path := filepath.Join(dir, e.Name())
		if !o.DryRun {
			if err := os.RemoveAll(path); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		out = append(out, Tree{Path: path, Reason: why})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, errs
}
