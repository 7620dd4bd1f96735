package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/cluster/clustertest"
	"github.com/csa-dev/csa/internal/session"
)

// gitIn runs git in dir with a fixed identity and no user configuration.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return string(out)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// callerRepository is the caller's checkout, at a path no worker uses: a
// committed file, a committed file changed and not committed, an
// untracked file and an ignored one.
func callerRepository(t *testing.T, m *machine) string {
	repo := filepath.Join(m.dir, "repo")
	gitIn(t, m.dir, "init", "-q", "-b", "main", repo)
	writeFile(t, filepath.Join(repo, "committed.txt"), "one\n")
	writeFile(t, filepath.Join(repo, "sub", "tracked.txt"), "old\n")
	writeFile(t, filepath.Join(repo, ".gitignore"), "*.log\n")
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "first")
	writeFile(t, filepath.Join(repo, "sub", "tracked.txt"), "new\n")
	writeFile(t, filepath.Join(repo, "untracked.txt"), "fresh\n")
	writeFile(t, filepath.Join(repo, "noise.log"), "ignored\n")
	return repo
}

// The agent copies what it sees (each copy is a new file in its diff,
// holding what the worker's tree held) and changes a committed file; it
// runs in the caller's subdirectory of the tree.
const treeAgent = `copy ../committed.txt ../seen-committed.txt; copy tracked.txt ../seen-tracked.txt; ` +
	`copy ../untracked.txt ../seen-untracked.txt; copy ../noise.log ../seen-noise.txt; ` +
	`write ../committed.txt changed by the agent; echo done`

// A remote run takes the caller's working tree (HEAD, the uncommitted
// change, the untracked file; not the ignored one) to a worker through
// the object store, without touching the caller's index or tree; its
// agent's diff comes back and csa apply applies exactly it; --check
// finds a conflicting local change and changes nothing.
func TestRemoteRunTreeAndApply(t *testing.T) {
	c := clustertest.Start(t, 3)
	caller := newMachine(t, "caller", c.URL())
	w := newMachine(t, "w1", c.URL())
	wdir := t.TempDir()
	w.startWorker(t, wdir, "--name", "w1")
	repo := callerRepository(t, caller)
	sub := filepath.Join(repo, "sub")
	waitWorkers(t, caller, repo, 1)

	status := gitIn(t, repo, "status", "--porcelain", "--ignored")
	index := readFile(t, filepath.Join(repo, ".git", "index"))
	id := strings.TrimSpace(caller.csa(t, sub, "run", "--remote", "--tool", "codex", treeAgent))
	if got := gitIn(t, repo, "status", "--porcelain", "--ignored"); got != status {
		t.Errorf("csa run --remote changed the caller's tree:\n%s\nwas\n%s", got, status)
	}
	if readFile(t, filepath.Join(repo, ".git", "index")) != index {
		t.Error("csa run --remote changed the caller's index")
	}
	if out, code, stderr := caller.csaCode(sub, "wait", "--timeout", "60s", id); code != 0 {
		t.Fatalf("csa wait: exit %d: %s %s", code, out, stderr)
	}

	var rec cluster.Record
	for _, r := range caller.records(t, repo) {
		if r.ID == id {
			rec = r
		}
	}
	if rec.Status != session.Completed || rec.Remote.Tree == nil || rec.Remote.Tree.Bundle == "" || rec.Remote.Tree.Subdir != "sub" {
		t.Fatalf("record: %s, tree %+v", rec.Status, rec.Remote.Tree)
	}
	wantFiles := []string{"committed.txt", "seen-committed.txt", "seen-tracked.txt", "seen-untracked.txt"}
	if d := rec.Remote.Diff; d == nil || d.Object != cluster.ResultObject(id) || !slices.Equal(d.Files, wantFiles) || d.Bytes == 0 {
		t.Fatalf("result diff %+v, want files %q", d, wantFiles)
	}
	// The scratch tree is gone once its diff is stored.
	scratch := filepath.Join(w.dir, "state", "cluster-trees", id)
	if _, err := os.Stat(scratch); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("scratch tree %s: %v, want it removed", scratch, err)
	}

	// --check: applies, changes nothing.
	var ans applied
	if err := json.Unmarshal([]byte(caller.csa(t, sub, "apply", "--check", "--json", id)), &ans); err != nil {
		t.Fatal(err)
	}
	slices.Sort(ans.Files)
	if !ans.Check || ans.Applied || !slices.Equal(ans.Files, wantFiles) || len(ans.Conflicts) != 0 {
		t.Errorf("apply --check: %+v", ans)
	}
	if got := gitIn(t, repo, "status", "--porcelain", "--ignored"); got != status {
		t.Errorf("csa apply --check changed the tree:\n%s", got)
	}

	// A local change to the file the agent changed conflicts: exit 1,
	// the path named, nothing changed.
	writeFile(t, filepath.Join(repo, "committed.txt"), "mine\n")
	out, code, stderr := caller.csaCode(sub, "apply", "--check", "--json", id)
	ans = applied{}
	if code != 1 || json.Unmarshal([]byte(out), &ans) != nil || !slices.Equal(ans.Conflicts, []string{"committed.txt"}) {
		t.Fatalf("apply --check on a conflict: exit %d, %s %s; want 1 and committed.txt", code, out, stderr)
	}
	_, code, stderr = caller.csaCode(sub, "apply", id)
	if code != 1 || !strings.Contains(stderr, "committed.txt") || !strings.Contains(stderr, "nothing was changed") {
		t.Fatalf("apply on a conflict: exit %d, %s", code, stderr)
	}
	if readFile(t, filepath.Join(repo, "committed.txt")) != "mine\n" {
		t.Fatal("a conflicting apply changed committed.txt")
	}
	for _, f := range []string{"seen-committed.txt", "seen-tracked.txt"} {
		if _, err := os.Stat(filepath.Join(repo, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a conflicting apply created %s", f)
		}
	}

	// Back to the tree the run started from: it applies, exactly.
	writeFile(t, filepath.Join(repo, "committed.txt"), "one\n")
	caller.csa(t, sub, "apply", id)
	for f, want := range map[string]string{"committed.txt": "changed by the agent\n", "seen-committed.txt": "one\n",
		"seen-tracked.txt": "new\n", "seen-untracked.txt": "fresh\n", "sub/tracked.txt": "new\n", "untracked.txt": "fresh\n"} {
		if got := readFile(t, filepath.Join(repo, f)); got != want {
			t.Errorf("after csa apply, %s holds %q, want %q", f, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(repo, "seen-noise.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Error("the ignored file travelled to the worker")
	}
	wantStatus := []string{" M committed.txt", " M sub/tracked.txt", "!! noise.log", "?? seen-committed.txt",
		"?? seen-tracked.txt", "?? seen-untracked.txt", "?? untracked.txt"}
	got := strings.Split(strings.TrimRight(gitIn(t, repo, "status", "--porcelain", "--ignored", "--untracked-files=all"), "\n"), "\n")
	slices.Sort(got)
	slices.Sort(wantStatus)
	if !slices.Equal(got, wantStatus) {
		t.Errorf("git status after csa apply:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantStatus, "\n"))
	}
	if readFile(t, filepath.Join(repo, ".git", "index")) != index {
		t.Error("csa apply changed the caller's index")
	}

	// No such session, and a session queued without a tree: exit 3.
	if _, code, stderr := caller.csaCode(sub, "apply", "01J00000000000000000000000"); code != 3 {
		t.Errorf("apply of an unknown id: exit %d, %s; want 3", code, stderr)
	}
	plain := strings.TrimSpace(caller.csa(t, wdir, "run", "--remote", "--remote-cwd", "--tool", "codex", "echo hi"))
	if _, code, stderr := caller.csaCode(sub, "apply", plain); code != 3 || !strings.Contains(stderr, "did not take a working tree") {
		t.Errorf("apply of a run without a tree: exit %d, %s; want 3", code, stderr)
	}
	caller.csa(t, wdir, "wait", "--timeout", "60s", plain)
}

// With [cluster] remote, no bundle travels: the worker fetches HEAD's
// commit from that git remote; a commit not pushed there fails the run,
// saying so.
func TestRemoteRunFromGitRemote(t *testing.T) {
	c := clustertest.Start(t, 3)
	caller := newMachine(t, "caller", c.URL())
	w := newMachine(t, "w1", c.URL())
	wdir := t.TempDir()
	w.startWorker(t, wdir, "--name", "w1")
	repo := callerRepository(t, caller)
	bare := filepath.Join(caller.dir, "origin.git")
	gitIn(t, repo, "clone", "-q", "--bare", repo, bare)
	cfg := filepath.Join(caller.dir, "cfg", "config.toml")
	writeFile(t, cfg, strings.Replace(readFile(t, cfg), "[cluster]\n", "[cluster]\nremote = \"file://"+bare+"\"\n", 1))
	waitWorkers(t, caller, repo, 1)

	id := strings.TrimSpace(caller.csa(t, repo, "run", "--remote", "--tool", "codex", "copy sub/tracked.txt seen.txt; echo done"))
	caller.csa(t, repo, "wait", "--timeout", "60s", id)
	diff := caller.csa(t, repo, "apply", "--diff", id)
	if !strings.Contains(diff, "b/seen.txt") || !strings.Contains(diff, "+new") {
		t.Errorf("the diff of a run from the git remote:\n%s", diff)
	}
	for _, r := range caller.records(t, repo) {
		if r.ID == id && (r.Remote.Tree == nil || r.Remote.Tree.Bundle != "" || r.Remote.Tree.Remote != "file://"+bare) {
			t.Errorf("tree %+v: want the git remote, no bundle", r.Remote.Tree)
		}
	}

	gitIn(t, repo, "commit", "-q", "--allow-empty", "-m", "not pushed")
	id = strings.TrimSpace(caller.csa(t, repo, "run", "--remote", "--tool", "codex", "echo never"))
	out, code, _ := caller.csaCode(repo, "wait", "--json", "--timeout", "60s", id)
	if code != 1 || !strings.Contains(out, "push it there first") {
		t.Errorf("a run of an unpushed commit: exit %d, %s", code, out)
	}
}
