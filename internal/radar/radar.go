// Package radar finds live worktree runs of one repository that change
// the same files, before their branches are merged: each run's supervisor
// reports the paths its worktree changes (Report, in the project's radar
// folder), and whoever lists sessions (csa ps, csa top, the web view)
// matches the reports of the runs still live (Find). Claim makes a new
// overlap fire its hooks once, whichever supervisor sees it first.
package radar

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/session"
)

// Dir is where the live runs of a store's project report: beside its
// sessions, one file per run.
func Dir(store *session.Store) string {
	return filepath.Join(filepath.Dir(store.Root()), "radar")
}

// Report is what one live worktree run changes.
type Report struct {
	ID     string
	Repo   string // the repository's top, where its worktree came from
	Branch string
	Paths  []string // sorted, relative to the repository's top
}

// The file of a report holds its fields separated by NUL bytes, the one
// byte no path holds: every path round-trips, whatever its bytes.
const sep = "\x00"

// File is where run id reports in dir.
func File(dir, id string) string { return filepath.Join(dir, id) }

// Write records r in dir, replacing the run's last report whole.
func Write(dir string, r Report) error {
	if err := fsutil.MkdirPrivate(dir); err != nil {
		return err
	}
	fields := append([]string{r.ID, r.Repo, r.Branch}, r.Paths...)
	return fsutil.WriteFileReplace(File(dir, r.ID), []byte(strings.Join(fields, sep)))
}

// Remove forgets the run id's report and the overlaps claimed with it:
// an ended run overlaps nothing.
func Remove(dir, id string) {
	os.Remove(File(dir, id))
	marks, _ := filepath.Glob(filepath.Join(dir, firedDir, "*"))
	for _, m := range marks {
		if a, b, ok := strings.Cut(filepath.Base(m), "+"); ok && (a == id || b == id) {
			os.RemoveAll(m)
		}
	}
}

// Read returns every report in dir, by id; a run whose report is being
// replaced at that moment is read whole (the file is renamed into place).
func Read(dir string) ([]Report, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Report
	for _, e := range ents {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue // its run ended since
		}
		f := strings.Split(string(b), sep)
		if len(f) < 3 || f[0] != e.Name() {
			continue
		}
		r := Report{ID: f[0], Repo: f[1], Branch: f[2]}
		if len(f) > 3 {
			r.Paths = f[3:]
		}
		out = append(out, r)
	}
	return out, nil
}

// Overlap is another live run changing some of the same files.
type Overlap struct {
	With  string   `json:"with"`
	Paths []string `json:"paths"`
}

// Find matches reports: for each run, the other runs in the same
// repository that change some of its paths, and those paths, ordered by
// the other's id. Runs that overlap nothing are not in the map.
func Find(reports []Report) map[string][]Overlap {
	var out map[string][]Overlap
	for i, a := range reports {
		for _, b := range reports[i+1:] {
			if a.Repo != b.Repo || a.ID == b.ID {
				continue
			}
			shared := intersect(a.Paths, b.Paths)
			if len(shared) == 0 {
				continue
			}
			if out == nil {
				out = map[string][]Overlap{}
			}
			out[a.ID] = append(out[a.ID], Overlap{With: b.ID, Paths: shared})
			out[b.ID] = append(out[b.ID], Overlap{With: a.ID, Paths: shared})
		}
	}
	for _, ovs := range out {
		slices.SortFunc(ovs, func(x, y Overlap) int { return strings.Compare(x.With, y.With) })
	}
	return out
}

// intersect is what two sorted lists share, sorted.
func intersect(a, b []string) []string {
	var out []string
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch c := strings.Compare(a[i], b[j]); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}

// firedDir, in the radar folder, holds a folder per pair of runs whose
// overlap fired, with a mark per path it fired for.
const firedDir = "fired"

// Claim marks the paths of an overlap between runs a and b fired, and
// returns those no one had marked yet: the new part of the overlap, for
// which the caller fires the hooks. Each path is claimed once for a pair,
// by one caller, however many look at once (a mark is made with O_EXCL).
func Claim(dir, a, b string, paths []string) ([]string, error) {
	if b < a {
		a, b = b, a
	}
	pair := filepath.Join(dir, firedDir, a+"+"+b)
	if err := os.MkdirAll(pair, 0o700); err != nil {
		return nil, err
	}
	var fresh []string
	for _, p := range paths {
		f, err := os.OpenFile(filepath.Join(pair, markName(p)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return fresh, err
		}
		f.Close()
		fresh = append(fresh, p)
	}
	return fresh, nil
}

// markName is a path as one file name (a path may be longer than a
// name may).
func markName(p string) string {
	sum := sha256.Sum256([]byte(p))
	return hex.EncodeToString(sum[:])
}

// Live matches the reports in dir of the runs live says are still live:
// a run whose supervisor was killed leaves its report behind.
func Live(dir string, live func(id string) bool) (map[string][]Overlap, error) {
	reports, err := Read(dir)
	if err != nil {
		return nil, err
	}
	kept := reports[:0]
	for _, r := range reports {
		if live(r.ID) {
			kept = append(kept, r)
		}
	}
	return Find(kept), nil
}

// Left are the runs with a report in dir that live says are not live: a
// supervisor killed before it could withdraw its report leaves it behind
// (csa gc removes it).
func Left(dir string, live func(id string) bool) ([]string, error) {
	reports, err := Read(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range reports {
		if !live(r.ID) {
			out = append(out, r.ID)
		}
	}
	slices.Sort(out)
	return out, nil
}
