package radar

import (
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Reports round-trip whatever bytes their paths hold, and Find flags the
// runs of one repository that share paths, not those of another.
func TestWriteReadFind(t *testing.T) {
	dir := t.TempDir()
	odd := "sub/é \n\xff name"
	reports := []Report{
		{ID: "a", Repo: "/r", Branch: "csa/a", Paths: []string{"f.txt", odd, "x.txt"}},
		{ID: "b", Repo: "/r", Branch: "csa/b", Paths: []string{"f.txt", odd}},
		{ID: "c", Repo: "/r", Branch: "csa/c", Paths: []string{"y.txt"}},
		{ID: "d", Repo: "/other", Branch: "csa/d", Paths: []string{"f.txt"}},
		{ID: "e", Repo: "/r", Branch: "csa/e", Paths: []string{"x.txt"}},
		{ID: "n", Repo: "/r", Branch: "csa/n"},
	}
	for _, r := range reports {
		if err := Write(dir, r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Read(dir)
	slices.SortFunc(got, func(x, y Report) int { return strings.Compare(x.ID, y.ID) })
	if err != nil || !reflect.DeepEqual(got, reports) {
		t.Fatalf("read %q %v\nwant %q", got, err, reports)
	}
	want := map[string][]Overlap{
		"a": {{With: "b", Paths: []string{"f.txt", odd}}, {With: "e", Paths: []string{"x.txt"}}},
		"b": {{With: "a", Paths: []string{"f.txt", odd}}},
		"e": {{With: "a", Paths: []string{"x.txt"}}},
	}
	if o := Find(got); !reflect.DeepEqual(o, want) {
		t.Fatalf("overlaps %q\nwant %q", o, want)
	}
	Remove(dir, "a")
	got, _ = Read(dir)
	if o := Find(got); len(o) != 0 {
		t.Errorf("after a ended: %q", o)
	}
}

// Each path of a pair's overlap is claimed once, by one of many callers
// claiming at once, from either side; a path newly shared is claimed
// then; Remove forgets the pair's claims.
func TestClaimOnce(t *testing.T) {
	dir := t.TempDir()
	paths := []string{"f.txt", "g.txt"}
	var mu sync.Mutex
	var won []string
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, b := "a", "b"
			if i%2 == 1 {
				a, b = b, a
			}
			fresh, err := Claim(dir, a, b, paths)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			won = append(won, fresh...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.Sort(won)
	if !slices.Equal(won, paths) {
		t.Fatalf("claimed %q, want each of %q once", won, paths)
	}
	if fresh, _ := Claim(dir, "b", "a", []string{"f.txt", "h.txt"}); !slices.Equal(fresh, []string{"h.txt"}) {
		t.Errorf("a grown overlap claimed %q, want h.txt", fresh)
	}
	Remove(dir, "b")
	if fresh, _ := Claim(dir, "a", "b", paths); !slices.Equal(fresh, paths) {
		t.Errorf("after b ended: %q", fresh)
	}
}

// Left names the runs whose report stays although they are not live, and
// Remove withdraws such a report with the overlaps claimed with it.
func TestLeft(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{"dead", "live", "gone"} {
		if err := Write(dir, Report{ID: id, Repo: "/r", Branch: "csa/" + id, Paths: []string{"f.txt"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Claim(dir, "dead", "live", []string{"f.txt"}); err != nil {
		t.Fatal(err)
	}
	left, err := Left(dir, func(id string) bool { return id == "live" })
	if err != nil || !slices.Equal(left, []string{"dead", "gone"}) {
		t.Fatalf("left %q %v", left, err)
	}
	for _, id := range left {
		Remove(dir, id)
	}
	got, _ := Read(dir)
	if len(got) != 1 || got[0].ID != "live" {
		t.Errorf("after removing: %+v", got)
	}
	// The pair's claim went with the dead run: a new overlap fires again.
	if fresh, _ := Claim(dir, "dead", "live", []string{"f.txt"}); !slices.Equal(fresh, []string{"f.txt"}) {
		t.Errorf("claimed %q after the dead run's report went", fresh)
	}
	if none, err := Left(t.TempDir()+"/missing", func(string) bool { return false }); err != nil || none != nil {
		t.Errorf("no radar folder: %q %v", none, err)
	}
}
