package takeback

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A blocked change made into a commit with git's markers, whose tree
// (once "resolved") becomes the merge: two parents, trailers naming the
// resolver and the review; the trailers of the branch's side and the
// marked paths are found as the resolver needs them.
func TestConflictedAndResolved(t *testing.T) {
	g := newGit(t)
	f := newFixture(t)
	a := f.change(f.run(map[string]string{"shared.txt": lines(map[int]string{2: "one"})}))
	b := f.change(f.run(map[string]string{"shared.txt": lines(map[int]string{2: "two"}), weird: "b\n"}))
	o, err := MergeQueue(ctx, g, f.caller, []*Change{a, b}, Merge)
	if err != nil || o.Results[1].Status != Blocked {
		t.Fatalf("queue: %+v, %v", o, err)
	}
	k, err := Conflicted(ctx, g, f.caller, o.To, b)
	if err != nil || k == nil {
		t.Fatalf("conflicted: %v, %v", k, err)
	}
	if !slices.Equal(k.Paths, []string{"shared.txt"}) || len(k.Sides) != 1 {
		t.Fatalf("paths %q, sides %d", k.Paths, len(k.Sides))
	}
	if parents := git(t, f.caller, nil, "rev-list", "--parents", "-n", "1", k.Commit); parents != k.Commit+" "+o.To {
		t.Fatalf("the marked commit's parents: %s", parents)
	}
	marked := git(t, f.caller, nil, "show", k.Commit+":shared.txt")
	if !strings.Contains(marked, "<<<<<<< ") || !strings.Contains(marked, "\none\n=======\ntwo\n>>>>>>> ") {
		t.Fatalf("no markers in the marked commit:\n%s", marked)
	}
	if got, err := g.Marked(ctx, f.caller, k.Commit, []string{"shared.txt", weird}); err != nil || !slices.Equal(got, []string{"shared.txt"}) {
		t.Fatalf("marked %q, %v", got, err)
	}
	if got, err := g.Trailer(ctx, f.caller, b.Snapshot, o.To, "CSA-Tool", k.Paths); err != nil || !slices.Equal(got, []string{"fakeagent"}) {
		t.Fatalf("trailers of the branch's side: %q, %v", got, err)
	}
	// A resolution: the marked tree with shared.txt settled.
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, f.caller, nil, "worktree", "add", "-q", "--detach", wt, k.Commit)
	write(t, filepath.Join(wt, "shared.txt"), lines(map[int]string{2: "one and two"}))
	git(t, wt, nil, "commit", "-q", "-a", "-m", "resolved")
	head := git(t, wt, nil, "rev-parse", "HEAD")
	if got, err := g.Marked(ctx, f.caller, head, k.Paths); err != nil || got != nil {
		t.Fatalf("marked after the resolution: %q, %v", got, err)
	}
	commit, err := k.Resolved(ctx, g, f.caller, Merge, Resolution{SessionID: "R1", Tool: "gemini-cli", Review: "V1", Tree: head + "^{tree}"})
	if err != nil {
		t.Fatal(err)
	}
	parents := strings.Fields(git(t, f.caller, nil, "rev-list", "--parents", "-n", "1", commit))
	if len(parents) != 3 || parents[1] != o.To || parents[2] != b.Head {
		t.Fatalf("the merge's parents %q, want %s and the run's head %s", parents, o.To, b.Head)
	}
	msg := git(t, f.caller, nil, "log", "-1", "--format=%B", commit)
	for _, want := range []string{"Merge " + b.Branch, "resolved by csa session R1 (gemini-cli), reviewed by csa session V1", "CSA-Resolved-By: R1\nCSA-Reviewed-By: V1"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("message %q lacks %q", msg, want)
		}
	}
	if got := git(t, f.caller, nil, "show", commit+":"+weird); got != "b" {
		t.Fatalf("the change's other path: %q", got)
	}
	// Squash: one commit on the branch with the run's message and the trailers.
	sq, err := k.Resolved(ctx, g, f.caller, Squash, Resolution{SessionID: "R1", Tool: "gemini-cli", Review: "V1", Tree: head + "^{tree}"})
	if err != nil {
		t.Fatal(err)
	}
	if p := strings.Fields(git(t, f.caller, nil, "rev-list", "--parents", "-n", "1", sq)); len(p) != 2 || p[1] != o.To {
		t.Fatalf("squash parents %q", p)
	}
	if tr := git(t, f.caller, nil, "log", "-1", "--format=%(trailers:key=CSA-Resolved-By,valueonly)", sq); tr != "R1" {
		t.Fatalf("squash trailer %q", tr)
	}
	// Onto a branch where the change merges cleanly: nothing to resolve.
	if k, err := Conflicted(ctx, g, f.caller, a.Base, b); err != nil || k != nil {
		t.Fatalf("conflicted onto the start: %v, %v", k, err)
	}
}

// A change is In a branch once merged there by any strategy, and not
// before.
func TestIn(t *testing.T) {
	g := newGit(t)
	for _, s := range []Strategy{Merge, Squash, Rebase} {
		f := newFixture(t)
		c := f.change(f.run(map[string]string{"shared.txt": lines(map[int]string{3: "three"})}))
		if in, err := In(ctx, g, f.caller, "HEAD", c); err != nil || in {
			t.Fatalf("%s: in before the merge: %v, %v", s, in, err)
		}
		if _, err := MergeQueue(ctx, g, f.caller, []*Change{c}, s); err != nil {
			t.Fatal(err)
		}
		if in, err := In(ctx, g, f.caller, "HEAD", c); err != nil || !in {
			t.Fatalf("%s: not in after the merge: %v, %v", s, in, err)
		}
	}
}
