package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/testkit/gitrepo"
	"github.com/csa-dev/csa/internal/workspace"
)

// Issue 26's speed target: a run's workspace ready (worktree + the
// caller's uncommitted changes) in at most 1.5x a plain `git worktree add`
// of the same repository.
const workspaceLimit = 1.5

// gitEnv keeps the user's and the system's git configuration out of the
// benchmark's repositories.
func gitEnv() []string {
	return append(os.Environ(), gitrepo.Env("bench", "bench@localhost")...)
}

func gitIn(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	c := exec.Command("git", args...)
	c.Dir, c.Env = dir, gitEnv()
	out, err := c.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// untrackedMark is the file every benchmark repository holds uncommitted:
// a workspace without it did not take the caller's changes.
const untrackedMark = "bench-untracked/new-0.txt"

// manyFilesRepo makes at dir a repository of n files in 100 folders, one
// commit, then changes 20 of them (5 staged) and adds 5 untracked files.
func manyFilesRepo(tb testing.TB, dir string, n int) {
	tb.Helper()
	gitIn(tb, filepath.Dir(dir), "init", "-q", "-b", "main", dir)
	body := strings.Repeat("a line of text, as source files have them\n", 15)
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%100), fmt.Sprintf("f%05d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("file %d\n%s", i, body)), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	gitIn(tb, dir, "add", "-A")
	gitIn(tb, dir, "commit", "-q", "-m", "many files")
	dirty(tb, dir, func(i int) string { return fmt.Sprintf("d%02d/f%05d.txt", i, i) })
}

// ownRepo clones csa's own repository to dir and dirties it alike.
func ownRepo(tb testing.TB, dir string) {
	tb.Helper()
	gitIn(tb, filepath.Dir(dir), "clone", "-q", "--no-local", moduleDir, dir)
	files := strings.Fields(gitIn(tb, dir, "ls-files", "*.go"))
	dirty(tb, dir, func(i int) string { return files[i*len(files)/20] })
}

// dirty changes 20 tracked files (path(0..19); the first 5 staged) and
// adds 5 untracked ones: the uncommitted work a caller has.
func dirty(tb testing.TB, dir string, path func(int) string) {
	tb.Helper()
	for i := range 20 {
		p := filepath.Join(dir, filepath.FromSlash(path(i)))
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			tb.Fatal(err)
		}
		fmt.Fprintf(f, "// changed, not committed %d\n", i)
		f.Close()
		if i < 5 {
			gitIn(tb, dir, "add", "--", path(i))
		}
	}
	for i := range 5 {
		p := filepath.Join(dir, "bench-untracked", fmt.Sprintf("new-%d.txt", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("untracked\n"), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkWorkspaceCreate is issue 26's target: workspace.Create (the
// snapshot of the caller's tree, its commit, the worktree on a new branch)
// against `git worktree add` alone of the same repository, in pairs.
func BenchmarkWorkspaceCreate(b *testing.B) {
	b.Run("10k-files", func(b *testing.B) {
		repo := filepath.Join(benchDir, "ws-10k", "repo")
		os.RemoveAll(filepath.Dir(repo))
		os.MkdirAll(filepath.Dir(repo), 0o700)
		manyFilesRepo(b, repo, 10000)
		workspaceCreate(b, repo, "ws-10k", "10,000 files")
	})
	b.Run("csa", func(b *testing.B) {
		repo := filepath.Join(benchDir, "ws-csa", "repo")
		os.RemoveAll(filepath.Dir(repo))
		os.MkdirAll(filepath.Dir(repo), 0o700)
		ownRepo(b, repo)
		workspaceCreate(b, repo, "ws-csa", "csa's own")
	})
}

func workspaceCreate(b *testing.B, repo, key, what string) {
	ctx := context.Background()
	g := &gittree.Git{Env: gittree.Clean(gitEnv())}
	store, err := session.Open(filepath.Join(filepath.Dir(repo), "state", "projects", "p", "sessions"))
	if err != nil {
		b.Fatal(err)
	}
	files := strings.Count(gitIn(b, repo, "ls-files"), "\n")
	n := 0
	plain := func() time.Duration {
		n++
		dir := filepath.Join(filepath.Dir(repo), "plain", fmt.Sprint(n))
		branch := fmt.Sprintf("plain/%d", n)
		c := exec.Command("git", "worktree", "add", "--quiet", "-b", branch, dir, "HEAD")
		c.Dir, c.Env = repo, gitEnv()
		t0 := time.Now()
		out, err := c.CombinedOutput()
		d := time.Since(t0)
		if err != nil {
			b.Fatalf("git worktree add: %v\n%s", err, out)
		}
		gitIn(b, repo, "worktree", "remove", "--force", dir)
		gitIn(b, repo, "branch", "-q", "-D", branch)
		return d
	}
	create := func() time.Duration {
		st := &session.State{ID: session.NewID(time.Now()), Tool: "codex", Status: session.Pending}
		h, err := store.Create(st.ID)
		if err != nil {
			b.Fatal(err)
		}
		h.Release()
		t0 := time.Now()
		var snap *gittree.Snapshot // each pair takes its own snapshot, as a run does
		dir, err := workspace.Create(ctx, g, store, st, "bench", repo, workspace.Options{}, &snap)
		d := time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, untrackedMark)); err != nil {
			b.Fatalf("the workspace lacks the caller's untracked file: %v", err)
		}
		if err := workspace.Discard(ctx, g, st.Workspace); err != nil {
			b.Fatal(err)
		}
		return d
	}
	ps, cs, _ := pairs(b, plain, create)
	p50, p90 := report(b, "git-worktree-add", ps)
	c50, c90 := report(b, "workspace-create", cs)
	ratios := make([]time.Duration, len(ps)) // ratio x 1000, as durations for quantile
	for i := range ps {
		ratios[i] = time.Duration(float64(cs[i]) / float64(ps[i]) * 1000)
	}
	r50, r90 := quantile(ratios, 0.5), quantile(ratios, 0.9)
	b.ReportMetric(float64(r50)/1000, "ratio-p50")
	n2 := fmt.Sprintf("n=%d", len(ps))
	record(key+"-plain", fmt.Sprintf("git worktree add, %s (%d files)", what, files),
		fmt.Sprintf("p50 %.1f ms, p90 %.1f ms", ms(p50), ms(p90)), n2, "info")
	record(key+"-create", fmt.Sprintf("workspace ready (snapshot + worktree), %s", what),
		fmt.Sprintf("p50 %.1f ms, p90 %.1f ms", ms(c50), ms(c90)), n2, "info")
	record(key+"-ratio", "  workspace / git worktree add, paired",
		fmt.Sprintf("p50 %.2fx, p90 %.2fx", float64(r50)/1000, float64(r90)/1000),
		fmt.Sprintf("p50 <= %.1fx", workspaceLimit), verdict(float64(r50)/1000 <= workspaceLimit))
}

// BenchmarkRunWorktree is `csa run -w` against `csa run` of the stand-in
// agent in a repository with uncommitted changes (10,000 files; csa's
// own): what a worktree of its own adds to a run (made, its change
// recorded, removed).
func BenchmarkRunWorktree(b *testing.B) {
	b.Run("10k-files", func(b *testing.B) {
		w := newWorld(b, "run-worktree-10k", "")
		os.RemoveAll(w.projDir)
		manyFilesRepo(b, w.projDir, 10000)
		runWorktree(b, w, "run-w-10k", "10,000 files")
	})
	b.Run("csa", func(b *testing.B) {
		w := newWorld(b, "run-worktree-csa", "")
		os.RemoveAll(w.projDir)
		ownRepo(b, w.projDir)
		runWorktree(b, w, "run-w-csa", "csa's own")
	})
}

func runWorktree(b *testing.B, w *world, key, what string) {
	null := devNull(b)
	plain := func() time.Duration {
		return w.command(b, null, csaBin, "run", "--tool", "codex", "echo hi").timed(b)
	}
	worktree := func() time.Duration {
		return w.command(b, null, csaBin, "run", "-w", "--tool", "codex", "echo hi").timed(b)
	}
	ps, ws, diff := pairs(b, plain, worktree)
	p50, _ := report(b, "csa-run", ps)
	w50, _ := report(b, "csa-run-w", ws)
	d50, d90 := report(b, "added", diff)
	worktrees := 0
	for _, e := range recordedSessions(b, storeOf(b, w), 2*(len(ps)+5)) {
		if e.Err != nil || e.State.Status != session.Completed || e.State.Result != "hi" {
			b.Fatalf("session %s: %v %+v", e.ID, e.Err, e.State)
		}
		if ws := e.State.Workspace; ws != nil {
			if !ws.Recorded || ws.Dir != "" {
				b.Fatalf("session %s: worktree not recorded and removed: %+v", e.ID, ws)
			}
			worktrees++
		}
	}
	if worktrees != len(ps)+5 {
		b.Fatalf("%d runs had a worktree, want %d", worktrees, len(ps)+5)
	}
	record(key, "csa run -w vs csa run, "+what,
		fmt.Sprintf("p50 %.1f vs %.1f ms; added p50 %.1f ms, p90 %.1f ms", ms(w50), ms(p50), ms(d50), ms(d90)),
		fmt.Sprintf("n=%d", len(ps)), "info")
}
