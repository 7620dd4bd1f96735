package takeback

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/session"
)

// Three runs from a caller with an uncommitted change: apply of one
// applies; a second conflicting one fails and leaves the tree byte for
// byte as it was; merge of a third refuses a tree git would not
// overwrite, then merges only the run's own change (never the caller's
// snapshot commit).
func TestApplyConflictMerge(t *testing.T) {
	g := newGit(t)
	f := newFixture(t)
	write(t, filepath.Join(f.caller, "caller.txt"), "uncommitted by the caller\n")
	a := f.run(map[string]string{"shared.txt": lines(map[int]string{3: "A"})})
	b := f.run(map[string]string{"shared.txt": lines(map[int]string{3: "B"})})
	c := f.run(map[string]string{"shared.txt": lines(map[int]string{9: "C"}), weird: "\x00binary\xff by C\n"})
	index := read(t, filepath.Join(f.caller, ".git", "index"))

	diff, err := Diff(ctx, g, f.change(c))
	if err != nil || !slices.Contains(splitLines(diff), "+C") {
		t.Fatalf("diff of C: %v\n%s", err, diff)
	}
	stat, err := Stat(ctx, g, f.change(c))
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{stat[0].Path, stat[1].Path}
	slices.Sort(paths)
	if want := []string{weird, "shared.txt"}; !slices.Equal(paths, want) || !stat[0].Binary {
		t.Fatalf("stat of C: %+v (the caller's caller.txt must not be in it)", stat)
	}

	got, err := Apply(ctx, g, f.caller, f.change(a), false)
	if err != nil || !slices.Equal(got, []string{"shared.txt"}) {
		t.Fatalf("apply A: %q, %v", got, err)
	}
	if read(t, filepath.Join(f.caller, "shared.txt")) != lines(map[int]string{3: "A"}) ||
		read(t, filepath.Join(f.caller, "caller.txt")) != "uncommitted by the caller\n" {
		t.Fatal("apply A did not apply A alone")
	}
	if read(t, filepath.Join(f.caller, ".git", "index")) != index {
		t.Error("apply changed the index")
	}

	before := tree(t, f.caller)
	for _, check := range []bool{true, false} {
		_, err = Apply(ctx, g, f.caller, f.change(b), check)
		var conflict *gittree.Conflict
		if !errors.As(err, &conflict) || !slices.Equal(conflict.Paths, []string{"shared.txt"}) {
			t.Fatalf("apply B (check %v): %v, want a conflict on shared.txt", check, err)
		}
		sameTree(t, f.caller, before)
	}

	// A's applied change is uncommitted in shared.txt, which C changes:
	// git would not overwrite it.
	head := git(t, f.caller, nil, "rev-parse", "HEAD")
	_, err = MergeQueue(ctx, g, f.caller, []*Change{f.change(c)}, Merge)
	var dirty *gittree.DirtyError
	if !errors.As(err, &dirty) || !slices.Equal(dirty.Paths, []string{"shared.txt"}) {
		t.Fatalf("merge C on a dirty shared.txt: %v, want a DirtyError", err)
	}
	sameTree(t, f.caller, before)
	if git(t, f.caller, nil, "rev-parse", "HEAD") != head {
		t.Fatal("a refused merge moved HEAD")
	}

	git(t, f.caller, nil, "commit", "-q", "-m", "A", "--", "shared.txt")
	o, err := MergeQueue(ctx, g, f.caller, []*Change{f.change(c)}, Merge)
	if err != nil || o.Blocked() || len(o.Results) != 1 {
		t.Fatalf("merge C: %+v, %v", o, err)
	}
	if read(t, filepath.Join(f.caller, "shared.txt")) != lines(map[int]string{3: "A", 9: "C"}) ||
		read(t, filepath.Join(f.caller, weird)) != "\x00binary\xff by C\n" {
		t.Fatal("merge C did not bring C's change")
	}
	if read(t, filepath.Join(f.caller, "caller.txt")) != "uncommitted by the caller\n" ||
		git(t, f.caller, nil, "show", "HEAD:caller.txt") != "committed" {
		t.Fatal("the caller's uncommitted caller.txt was touched or merged")
	}
	cc := f.change(c)
	if o.To != git(t, f.caller, nil, "rev-parse", "HEAD") || git(t, f.caller, nil, "rev-parse", "HEAD^2^") != cc.Base {
		t.Fatal("the merge commit's second parent is not the run's change on its base")
	}
	if err := exec(f.caller, "merge-base", "--is-ancestor", cc.Snapshot, "HEAD"); err == nil {
		t.Fatal("the caller's snapshot commit is in the branch's history")
	}
	if b, _ := os.ReadFile(filepath.Join(f.caller, ".git", "MERGE_HEAD")); b != nil {
		t.Fatal("a merge is left in progress")
	}
}

// Six runs merged as a queue, two of which conflict with the result so
// far: the four clean ones merged in order, the two reported with their
// paths (bytes as they are), nothing of them in the tree.
func TestMergeQueue(t *testing.T) {
	g := newGit(t)
	f := newFixture(t)
	ids := []string{
		f.run(map[string]string{"shared.txt": lines(map[int]string{2: "one"}), "f1": "1\n"}),
		f.run(map[string]string{"shared.txt": lines(map[int]string{2: "two"}), "f2": "2\n"}),
		f.run(map[string]string{"shared.txt": lines(map[int]string{4: "three"}), weird: "3\n"}),
		f.run(map[string]string{"shared.txt": lines(map[int]string{6: "four"}), "f4": "4\n"}),
		f.run(map[string]string{"shared.txt": lines(map[int]string{6: "five"}), weird: "5\n"}),
		f.run(map[string]string{"shared.txt": lines(map[int]string{8: "six"}), "f6": "6\n"}),
	}
	var changes []*Change
	for _, id := range ids {
		changes = append(changes, f.change(id))
	}
	start := git(t, f.caller, nil, "rev-parse", "HEAD")
	o, err := MergeQueue(ctx, g, f.caller, changes, Merge)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{Merged, Blocked, Merged, Merged, Blocked, Merged}
	for i, r := range o.Results {
		if r.Change.SessionID != ids[i] || r.Status != want[i] {
			t.Fatalf("result %d: %s %s, want %s %s", i, r.Change.SessionID, r.Status, ids[i], want[i])
		}
	}
	// Both sides' hunks of each conflicting path, from the run's snapshot.
	sides := map[string][2]string{}
	for _, i := range []int{1, 4} {
		r := o.Results[i]
		if len(r.Sides) != len(r.Paths) {
			t.Fatalf("result %d: %d sides for paths %q", i, len(r.Sides), r.Paths)
		}
		for j, sd := range r.Sides {
			if sd.Ours.Path != r.Paths[j] || sd.Theirs.Path != r.Paths[j] || len(sd.Ours.Hunks) != 1 || len(sd.Theirs.Hunks) != 1 {
				t.Fatalf("result %d, %q: %+v", i, r.Paths[j], sd)
			}
			sides[fmt.Sprint(i, r.Paths[j])] = [2]string{sd.Ours.Hunks[0], sd.Theirs.Hunks[0]}
		}
	}
	hunk := func(side string) string {
		return "@@ -1,5 +1,5 @@\n line 1\n-line 2\n+" + side + "\n line 3\n line 4\n line 5\n"
	}
	if got := sides["1shared.txt"]; got != [2]string{hunk("one"), hunk("two")} {
		t.Fatalf("shared.txt's sides for the second run: %q", got)
	}
	if got := sides["4"+weird]; got != [2]string{"@@ -0,0 +1 @@\n+3\n", "@@ -0,0 +1 @@\n+5\n"} {
		t.Fatalf("%q's sides for the fifth run: %q", weird, got)
	}
	if got := sides["4shared.txt"]; !strings.Contains(got[0], "+three\n") || !strings.Contains(got[0], "+four\n") || !strings.Contains(got[1], "+five\n") {
		t.Fatalf("shared.txt's sides for the fifth run: %q", got)
	}
	slices.Sort(o.Results[4].Paths)
	if !slices.Equal(o.Results[1].Paths, []string{"shared.txt"}) || !slices.Equal(o.Results[4].Paths, []string{weird, "shared.txt"}) {
		t.Fatalf("blocked paths: %q and %q", o.Results[1].Paths, o.Results[4].Paths)
	}
	if read(t, filepath.Join(f.caller, "shared.txt")) != lines(map[int]string{2: "one", 4: "three", 6: "four", 8: "six"}) ||
		read(t, filepath.Join(f.caller, weird)) != "3\n" {
		t.Fatal("the clean changes are not all in the tree")
	}
	for _, gone := range []string{"f2", "f5"} {
		if _, err := os.Stat(filepath.Join(f.caller, gone)); err == nil {
			t.Fatalf("%s of a blocked run is in the tree", gone)
		}
	}
	// First-parent history: one merge per clean run, in the queue's order.
	log := splitLines([]byte(git(t, f.caller, nil, "log", "--first-parent", "--reverse", "--format=%s", start+"..HEAD")))
	var order []string
	for _, i := range []int{0, 2, 3, 5} {
		order = append(order, "Merge "+changes[i].Branch+" (csa session "+ids[i]+")")
	}
	if !slices.Equal(log, order) {
		t.Fatalf("history %q, want %q", log, order)
	}
	if s := git(t, f.caller, nil, "status", "--porcelain"); s != "" {
		t.Fatalf("the tree is not clean after the queue: %s", s)
	}
}

// --squash makes one commit of the run's change, --rebase replays its
// commits; both keep the run's author and message.
func TestSquashAndRebase(t *testing.T) {
	g := newGit(t)
	for _, s := range []Strategy{Squash, Rebase} {
		f := newFixture(t)
		id := f.run(map[string]string{"shared.txt": lines(map[int]string{5: "five"})})
		start := git(t, f.caller, nil, "rev-parse", "HEAD")
		o, err := MergeQueue(ctx, g, f.caller, []*Change{f.change(id)}, s)
		if err != nil || o.Blocked() {
			t.Fatalf("%s: %+v %v", s, o, err)
		}
		if git(t, f.caller, nil, "rev-parse", "HEAD^") != start || git(t, f.caller, nil, "log", "-1", "--format=%an %s") != "csa run "+id {
			t.Fatalf("%s: %s", s, git(t, f.caller, nil, "log", "-2", "--format=%an %p %s"))
		}
		if git(t, f.caller, nil, "rev-list", "--count", "--merges", "HEAD") != "0" {
			t.Fatalf("%s made a merge commit", s)
		}
		if read(t, filepath.Join(f.caller, "shared.txt")) != lines(map[int]string{5: "five"}) {
			t.Fatalf("%s did not bring the change", s)
		}
	}
}

// A session that ran in the caller's tree, or has not recorded its
// change, has none to take back.
func TestNoChange(t *testing.T) {
	for _, st := range []*session.State{
		{ID: "A", Status: session.Completed},
		{ID: "B", Status: session.Running, Workspace: &session.Workspace{Branch: "csa/b", Snapshot: "x"}},
	} {
		var nc *NoChangeError
		if _, err := Of(st); !errors.As(err, &nc) {
			t.Errorf("%s: %v, want a NoChangeError", st.ID, err)
		}
	}
}
