package change_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cli/root"
	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/project"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/testkit/gitrepo"
	"github.com/csa-dev/csa/internal/verbatim"
)

// weird is a path that is not text: a byte that is not UTF-8.
const weird = "d é/\xff x.bin"

var gitEnv = gitrepo.Env("user", "user@example.com")

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, path, text string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const shared = "1\n2\n3\n4\n5\n"

type env struct {
	t      *testing.T
	caller string
	state  string
	store  *session.Store
	n      int
}

// newEnv: a caller's repository as the current directory, and its
// project's session store under a state directory of its own.
func newEnv(t *testing.T) *env {
	for _, kv := range gitEnv {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	dir := t.TempDir()
	caller := filepath.Join(dir, "caller")
	git(t, dir, "init", "-q", "-b", "main", caller)
	write(t, filepath.Join(caller, "shared.txt"), shared)
	git(t, caller, "add", ".")
	git(t, caller, "commit", "-q", "-m", "start")
	t.Chdir(caller)
	e := &env{t: t, caller: caller, state: filepath.Join(dir, "state")}
	f := e.factory(nil, nil)
	r, err := project.FindRoot(caller)
	if err != nil {
		t.Fatal(err)
	}
	if e.store, err = f.Store(r); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) factory(out, errOut *bytes.Buffer) *cmdutil.Factory {
	if out == nil {
		out, errOut = &bytes.Buffer{}, &bytes.Buffer{}
	}
	return &cmdutil.Factory{
		IO: &cmdutil.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut},
		Getenv: func(k string) string {
			if k == csaenv.StateDir {
				return e.state
			}
			if strings.HasPrefix(k, "CSA_") {
				return ""
			}
			return os.Getenv(k)
		},
		Environ: os.Environ, Now: time.Now, Executable: os.Executable,
	}
}

// csa runs csa's command tree in this process and returns its exit
// status, standard output and standard error.
func (e *env) csa(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := root.Main(context.Background(), e.factory(&out, &errOut), args)
	return code, out.String(), errOut.String()
}

// run records what csa run --worktree leaves: the run's edits committed
// on a branch of its own from the caller's HEAD (the caller has no
// uncommitted change: the snapshot is the base), and the session.
func (e *env) run(edits map[string]string) string {
	t := e.t
	e.n++
	id := session.NewID(time.Date(2026, 1, 1, 0, 0, 0, e.n*int(time.Millisecond), time.UTC))
	branch := "csa/" + strings.ToLower(id[len(id)-8:])
	base := git(t, e.caller, "rev-parse", "HEAD")
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, e.caller, "worktree", "add", "-q", "-b", branch, wt, base)
	for p, text := range edits {
		write(t, filepath.Join(wt, p), text)
	}
	git(t, wt, "add", "-A")
	git(t, wt, "commit", "-q", "-m", "run "+id)
	head := git(t, wt, "rev-parse", "HEAD")
	git(t, e.caller, "worktree", "remove", wt)
	e.save(&session.State{ID: id, Tool: "fakeagent", Status: session.Completed, ProjectRoot: e.caller, Cwd: e.caller,
		Workspace: &session.Workspace{Repo: e.caller, Branch: branch, Base: base, Snapshot: base, Head: head, Recorded: true}})
	return id
}

func (e *env) save(st *session.State) {
	if err := e.store.MakeDir(st.ID); err != nil {
		e.t.Fatal(err)
	}
	st.CreatedAt = time.Now()
	if err := e.store.Save(st); err != nil {
		e.t.Fatal(err)
	}
}

func TestTakeBackCommands(t *testing.T) {
	e := newEnv(t)
	a := e.run(map[string]string{"shared.txt": strings.Replace(shared, "3\n", "A\n", 1)})
	b := e.run(map[string]string{"shared.txt": strings.Replace(shared, "3\n", "B\n", 1)})
	c := e.run(map[string]string{weird: "\x00\xffC\n"})
	st, _ := e.store.Load(c)

	if code, out, _ := e.csa("branch", c); code != 0 || out != st.Workspace.Branch+"\n" {
		t.Fatalf("csa branch: %d %q", code, out)
	}
	code, out, _ := e.csa("diff", a)
	if code != 0 || !strings.Contains(out, "+A\n") || !strings.Contains(out, "-3\n") {
		t.Fatalf("csa diff: %d %s", code, out)
	}
	// --json keeps the exact bytes of a path that is not text.
	code, out, _ = e.csa("diff", "--stat", "--json", c)
	var d struct {
		SessionID string `json:"session_id"`
		Files     []struct {
			Path   string `json:"path"`
			Binary bool   `json:"binary"`
		} `json:"files"`
		Diff     *string           `json:"diff"`
		RawBytes map[string]string `json:"raw_bytes"`
	}
	if bad, err := verbatim.Unmarshal([]byte(out), &d); code != 0 || err != nil || bad != nil {
		t.Fatalf("csa diff --stat --json: %d %v %q %s", code, err, bad, out)
	}
	if d.SessionID != c || len(d.Files) != 1 || d.Files[0].Path != weird || !d.Files[0].Binary || d.Diff != nil {
		t.Fatalf("csa diff --stat --json: %+v", d)
	}

	if code, out, errOut := e.csa("apply", a); code != 0 || !strings.Contains(out, "applied") {
		t.Fatalf("csa apply A: %d %s %s", code, out, errOut)
	}
	applied := read(t, filepath.Join(e.caller, "shared.txt"))
	code, out, errOut := e.csa("apply", "--json", b)
	var ans struct {
		Applied   bool     `json:"applied"`
		Conflicts []string `json:"conflicts"`
	}
	if code != 1 || json.Unmarshal([]byte(out), &ans) != nil || ans.Applied || !slices.Equal(ans.Conflicts, []string{"shared.txt"}) {
		t.Fatalf("csa apply B: exit %d %s %s, want 1 and shared.txt", code, out, errOut)
	}
	if read(t, filepath.Join(e.caller, "shared.txt")) != applied {
		t.Fatal("a conflicting apply changed the tree")
	}

	// C does not touch A's uncommitted shared.txt: git merges it.
	if code, out, errOut := e.csa("merge", c); code != 0 || read(t, filepath.Join(e.caller, weird)) != "\x00\xffC\n" {
		t.Fatalf("csa merge C: %d %s %s", code, out, errOut)
	}
	// B would overwrite it: refused, exit 2, nothing changed.
	head := git(t, e.caller, "rev-parse", "HEAD")
	if code, _, errOut := e.csa("merge", "--json", b); code != 2 || !strings.Contains(errOut, `"dirty"`) {
		t.Fatalf("csa merge B on a dirty shared.txt: %d %s", code, errOut)
	}
	if git(t, e.caller, "rev-parse", "HEAD") != head || read(t, filepath.Join(e.caller, "shared.txt")) != applied {
		t.Fatal("a refused merge changed something")
	}

	// A queue: A merged, B blocked on shared.txt, exit 1.
	git(t, e.caller, "checkout", "--", "shared.txt")
	code, out, errOut = e.csa("merge", "--queue", "--json", a, b)
	var q struct {
		Strategy string `json:"strategy"`
		Results  []struct {
			SessionID string   `json:"session_id"`
			Status    string   `json:"status"`
			Commit    string   `json:"commit"`
			Paths     []string `json:"paths"`
			Hunks     []struct {
				Path         string `json:"path"`
				Ours, Theirs struct {
					Hunks []string `json:"hunks"`
				}
			} `json:"hunks"`
		} `json:"results"`
		To string `json:"to"`
	}
	if code != 1 || json.Unmarshal([]byte(out), &q) != nil || len(q.Results) != 2 {
		t.Fatalf("csa merge --queue A B: exit %d %s %s", code, out, errOut)
	}
	if r := q.Results; q.Strategy != "merge" || r[0].SessionID != a || r[0].Status != "merged" || r[0].Commit != q.To ||
		r[1].SessionID != b || r[1].Status != "blocked" || !slices.Equal(r[1].Paths, []string{"shared.txt"}) {
		t.Fatalf("csa merge --queue: %+v", q)
	}
	if q.To != git(t, e.caller, "rev-parse", "HEAD") || read(t, filepath.Join(e.caller, "shared.txt")) != applied {
		t.Fatal("the queue did not merge A")
	}
	// B's conflict shown from both sides: A's line merged so far, B's own.
	hunk := func(side string) []string { return []string{"@@ -1,5 +1,5 @@\n 1\n 2\n-3\n+" + side + "\n 4\n 5\n"} }
	if h := q.Results[1].Hunks; len(h) != 1 || h[0].Path != "shared.txt" ||
		!slices.Equal(h[0].Ours.Hunks, hunk("A")) || !slices.Equal(h[0].Theirs.Hunks, hunk("B")) || q.Results[0].Hunks != nil {
		t.Fatalf("csa merge --queue --json, both sides: %+v", q.Results)
	}
	code, _, errOut = e.csa("merge", "--queue", b)
	want := "shared.txt, both sides since the run's snapshot:\n" +
		"  ours (the current branch and the changes merged before it):\n    @@ -1,5 +1,5 @@\n     1\n     2\n    -3\n    +A\n     4\n     5\n" +
		"  theirs (the run's change):\n    @@ -1,5 +1,5 @@\n     1\n     2\n    -3\n    +B\n     4\n     5\n"
	if code != 1 || !strings.HasSuffix(errOut, want) {
		t.Fatalf("csa merge --queue B in text: exit %d\n%s\nwant it to end with\n%s", code, errOut, want)
	}
	if code, _, errOut := e.csa("merge", a, b); code != 2 {
		t.Fatalf("csa merge of two ids without --queue: %d %s", code, errOut)
	}
}

// A run in the caller's tree has no change to take back: exit 3.
func TestNoChange(t *testing.T) {
	e := newEnv(t)
	id := session.NewID(time.Now())
	e.save(&session.State{ID: id, Tool: "fakeagent", Status: session.Completed, ProjectRoot: e.caller, Cwd: e.caller})
	for _, cmd := range []string{"diff", "branch", "apply", "merge"} {
		if code, _, errOut := e.csa("--json", cmd, id); code != 3 || !strings.Contains(errOut, `"no_change"`) {
			t.Errorf("csa %s of a run without a worktree: %d %s, want 3 no_change", cmd, code, errOut)
		}
	}
}

// Hunks that are not UTF-8 keep their exact bytes in csa merge --json.
func TestMergeHunksKeepTheirBytes(t *testing.T) {
	e := newEnv(t)
	a := e.run(map[string]string{"shared.txt": strings.Replace(shared, "3\n", "\xffA\n", 1)})
	b := e.run(map[string]string{"shared.txt": strings.Replace(shared, "3\n", "\xfeB\n", 1)})
	code, out, errOut := e.csa("merge", "--queue", "--json", a, b)
	var q struct {
		Results []struct {
			Hunks []struct {
				Ours struct {
					Hunks []string `json:"hunks"`
				} `json:"ours"`
				Theirs struct {
					Hunks []string `json:"hunks"`
				} `json:"theirs"`
			} `json:"hunks"`
		} `json:"results"`
		RawBytes map[string]string `json:"raw_bytes"`
	}
	if bad, err := verbatim.Unmarshal([]byte(out), &q); code != 1 || err != nil || bad != nil || len(q.Results) != 2 {
		t.Fatalf("csa merge --queue --json: exit %d %v %q\n%s%s", code, err, bad, out, errOut)
	}
	h := q.Results[1].Hunks
	if len(h) != 1 || len(h[0].Ours.Hunks) != 1 || len(h[0].Theirs.Hunks) != 1 ||
		!strings.Contains(h[0].Ours.Hunks[0], "\n+\xffA\n") || !strings.Contains(h[0].Theirs.Hunks[0], "\n+\xfeB\n") {
		t.Fatalf("hunks: %q", h)
	}
}
