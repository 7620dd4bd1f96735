package fleet

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/csa-dev/csa/internal/radar"
	"github.com/csa-dev/csa/internal/session"
)

// The live view gives each live worktree run the size of its change so
// far and the runs it overlaps, from the radar's reports; a report of a
// run not live (its supervisor was killed) is left out.
func TestRadarOf(t *testing.T) {
	store, err := session.Open(filepath.Join(t.TempDir(), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	dir := radar.Dir(store)
	for _, r := range []radar.Report{
		{ID: "a", Repo: "/r", Branch: "csa/a", Paths: []string{"f.txt", "x.txt"}},
		{ID: "b", Repo: "/r", Branch: "csa/b", Paths: []string{"f.txt"}},
		{ID: "gone", Repo: "/r", Branch: "csa/gone", Paths: []string{"x.txt"}},
	} {
		if err := radar.Write(dir, r); err != nil {
			t.Fatal(err)
		}
	}
	a, b := &Row{ID: "a", Branch: "csa/a"}, &Row{ID: "b", Branch: "csa/b"}
	radarOf(store, map[string]*Row{"a": a, "b": b})
	if a.Files != 2 || b.Files != 1 {
		t.Errorf("files %d %d", a.Files, b.Files)
	}
	if want := []radar.Overlap{{With: "b", Paths: []string{"f.txt"}}}; !reflect.DeepEqual(a.Overlaps, want) {
		t.Errorf("a overlaps %+v", a.Overlaps)
	}
	if a.Change() != "csa/a 2 files" {
		t.Errorf("live change %q", a.Change())
	}
	done := &Row{Branch: "csa/c", Recorded: true, Files: 3, Insertions: 10, Deletions: 2}
	if done.Change() != "csa/c 3 files +10 -2" || (&Row{}).Change() != "" {
		t.Errorf("change %q", done.Change())
	}
}
