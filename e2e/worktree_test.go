package e2e

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/testkit/gitrepo"
)

// The caller's repository: notes.txt, which every run edits on the same
// line, and caller.txt, which the caller has changed without committing.
const (
	notesBase       = "line one\nline two\nline three\n"
	callerCommitted = "committed by the caller\n"
	// callerMarker is the caller's uncommitted change: it occurs in no
	// prompt, command or file the agents are given otherwise, so a
	// request carrying it carries the output of their `cat caller.txt`.
	callerMarker = "caller-uncommitted-7Q2x"
)

// worktreeRun is one of the parallel runs: its tool, and the second line
// of notes.txt it writes.
type worktreeRun struct {
	n    int
	tool string
}

func (r worktreeRun) prompt() string {
	return fmt.Sprintf("e2e worktree run %d: read caller.txt, then edit line 2 of notes.txt", r.n)
}

func (r worktreeRun) line() string {
	return fmt.Sprintf("line two, edited by run %d (%s)", r.n, r.tool)
}

func (r worktreeRun) notes() string { return "line one\n" + r.line() + "\nline three\n" }

// script makes the run's agent cat caller.txt through its shell tool,
// and edit notes.txt only once that output, the caller's uncommitted
// change, reached the model (the "saw" rule needs it in the request):
// with Claude Code's Read and Edit (csa-agent has the same tools), or
// Codex's shell (write_file becomes a shell command there).
func (r worktreeRun) script() string {
	edit := fmt.Sprintf("  [[rule.step]]\n  write_file = { path = \"notes.txt\", content = %q }\n", r.notes())
	if r.tool != "codex" {
		edit = fmt.Sprintf(`  [[rule.step]]
  call = { name = "Read", args = { file_path = "{cwd}/notes.txt" } }
  [[rule.step]]
  call = { name = "Edit", args = { file_path = "{cwd}/notes.txt", old_string = "line two\n", new_string = %q } }
`, r.line()+"\n")
	}
	key := fmt.Sprintf("e2e worktree run %d:", r.n)
	return fmt.Sprintf(`
[[rule]]
name = "saw-%[1]d"
contains = %[2]q
body = %[3]q
  [[rule.step]]
  text = "unused: turn 0 never carries the caller's change"
%[4]s  [[rule.step]]
  text = "run %[1]d saw the caller's change and edited notes.txt"

[[rule]]
name = "start-%[1]d"
contains = %[2]q
  [[rule.step]]
  shell = "cat caller.txt"
  [[rule.step]]
  text = "run %[1]d did not see the caller's change"
`, r.n, key, callerMarker, edit)
}

// TestWorktreeParallelRealAgents runs 8 real agents at once in worktrees of
// one repository (3 Codex, 3 Claude Code, 2 csa-agent), each editing the
// same line of the same file differently after reading the caller's
// uncommitted change: each branch holds exactly its run's edit, the
// caller's tree and index are as they were, and the changes come back
// with csa's commands: one applied, a second one refused (it conflicts)
// leaving the tree as it was, a third merged.
func TestWorktreeParallelRealAgents(t *testing.T) {
	runs := []worktreeRun{
		{0, "codex"}, {1, "claude-code"}, {2, "csa-agent"}, {3, "codex"},
		{4, "claude-code"}, {5, "csa-agent"}, {6, "codex"}, {7, "claude-code"},
	}
	var sc strings.Builder
	for _, r := range runs {
		sc.WriteString(r.script())
	}
	w := newWorld(t, sc.String())
	// The caller's git identity, which their merge commit takes.
	identity := gitrepo.Env("caller", "caller@example.com")
	w.env = append(w.env, identity...)
	git := func(args ...string) string {
		t.Helper()
		return gitrepo.Run(t, w.proj, identity, args...)
	}
	git("init", "-q", "-b", "main")
	w.write("notes.txt", notesBase)
	w.write("caller.txt", callerCommitted)
	git("add", "notes.txt", "caller.txt")
	git("commit", "-q", "-m", "base")
	w.write("caller.txt", callerMarker+"\n")
	base := strings.TrimSpace(git("rev-parse", "HEAD"))
	before := callerState(t, w.proj, git)

	// csa run without -d returns when the run has ended and its change is
	// recorded: the goroutines' end is the condition waited for.
	type outcome struct {
		out, stderr string
		code        int
		err         error
	}
	outcomes := make([]outcome, len(runs))
	start := time.Now()
	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := &outcomes[i]
			o.out, o.stderr, o.code, o.err = w.csaIn("run", "-w", "--json", "--tool", r.tool, r.prompt())
		}()
	}
	wg.Wait()
	t.Logf("%d parallel runs ended in %s", len(runs), time.Since(start).Round(time.Millisecond))

	ids := make([]string, len(runs))
	for i, r := range runs {
		o := outcomes[i]
		var res result
		if o.err != nil || o.code != 0 || json.Unmarshal([]byte(o.out), &res) != nil {
			t.Fatalf("run %d (%s): exit %d, %v\nstdout: %s\nstderr: %s\nmodel server saw:%s", r.n, r.tool, o.code, o.err, o.out, o.stderr, w.requests())
		}
		want := fmt.Sprintf("run %d saw the caller's change and edited notes.txt", r.n)
		if res.Status != "completed" || res.Tool != r.tool || !strings.Contains(res.Result, want) {
			t.Fatalf("run %d (%s): %+v, want its answer %q%s", r.n, r.tool, res, want, w.requests())
		}
		ids[i] = res.SessionID
	}

	if after := callerState(t, w.proj, git); after != before {
		t.Fatalf("the caller's tree or index changed during the runs:\n%s\nwas\n%s", after, before)
	}

	for i, r := range runs {
		ws := w.workspace(t, ids[i])
		if ws.Base != base || !ws.Recorded || ws.Head == "" {
			t.Fatalf("run %d: workspace %+v, want base %s and its change recorded", r.n, ws, base)
		}
		if b, _, stderr := w.csa("branch", ids[i]); strings.TrimSpace(b) != ws.Branch || ws.Branch == "" {
			t.Fatalf("run %d: csa branch printed %q (%s), its state records %q", r.n, b, stderr, ws.Branch)
		}
		if tip := strings.TrimSpace(git("rev-parse", ws.Branch)); tip != ws.Head {
			t.Fatalf("run %d: branch %s at %s, its recorded head is %s", r.n, ws.Branch, tip, ws.Head)
		}
		// The agent started from the caller's tree, uncommitted change
		// included; its change is its own edit and nothing else.
		if got := git("show", ws.Snapshot+":caller.txt"); got != callerMarker+"\n" {
			t.Fatalf("run %d: the snapshot's caller.txt is %q", r.n, got)
		}
		if got := git("diff", "--name-only", ws.Snapshot, ws.Head); got != "notes.txt\n" {
			t.Fatalf("run %d: its change touches %q, want notes.txt alone", r.n, got)
		}
		if got := git("show", ws.Head+":notes.txt"); got != r.notes() {
			t.Fatalf("run %d: its branch's notes.txt is %q, want %q", r.n, got, r.notes())
		}
		if msg := git("log", "-1", "--format=%B", ws.Head); !strings.Contains(msg, "CSA-Session: "+ids[i]) || !strings.Contains(msg, "CSA-Tool: "+r.tool) {
			t.Fatalf("run %d: the change's commit message lacks its trailers:\n%s", r.n, msg)
		}
		d, code, stderr := w.csa("diff", ids[i])
		if code != 0 || !strings.Contains(d, "\n-line two\n+"+r.line()+"\n") || strings.Count(d, "diff --git") != 1 {
			t.Fatalf("run %d: csa diff exit %d (%s):\n%s", r.n, code, stderr, d)
		}
	}

	// One change applied onto the caller's tree, the index untouched.
	applied, conflicting, merged := 0, 1, 2 // codex, claude-code, csa-agent
	if out, code, stderr := w.csa("apply", ids[applied]); code != 0 {
		t.Fatalf("csa apply %s: exit %d\n%s%s", ids[applied], code, out, stderr)
	}
	w.has(t, "notes.txt", runs[applied].notes())
	w.has(t, "caller.txt", callerMarker+"\n")
	if got := git("diff", "--cached", "--name-only"); got != "" {
		t.Fatalf("csa apply staged %q", got)
	}

	// A second one conflicts with it: exit 1, the tree as it was.
	withApplied := callerState(t, w.proj, git)
	out, code, stderr := w.csa("apply", ids[conflicting])
	if code != 1 || !strings.Contains(stderr, "notes.txt") {
		t.Fatalf("csa apply of a conflicting change: exit %d, want 1 naming notes.txt\n%s%s", code, out, stderr)
	}
	if got := callerState(t, w.proj, git); got != withApplied {
		t.Fatalf("a refused csa apply changed the tree:\n%s\nwas\n%s", got, withApplied)
	}

	// The caller drops the applied change, then merges a third: only its
	// own change enters the branch, the caller's uncommitted change stays
	// uncommitted.
	w.write("notes.txt", notesBase)
	if out, code, stderr := w.csa("merge", ids[merged]); code != 0 {
		t.Fatalf("csa merge %s: exit %d\n%s%s", ids[merged], code, out, stderr)
	}
	if got := git("show", "HEAD:notes.txt"); got != runs[merged].notes() {
		t.Fatalf("after csa merge the branch's notes.txt is %q, want %q", got, runs[merged].notes())
	}
	if got := git("show", "HEAD:caller.txt"); got != callerCommitted {
		t.Fatalf("csa merge committed the caller's uncommitted caller.txt: %q", got)
	}
	w.has(t, "notes.txt", runs[merged].notes())
	w.has(t, "caller.txt", callerMarker+"\n")
	if got := git("status", "--porcelain"); got != " M caller.txt\n" {
		t.Fatalf("after csa merge, git status:\n%s", got)
	}
	if got := strings.TrimSpace(git("rev-parse", "HEAD^1")); got != base {
		t.Fatalf("the merge's first parent is %s, want the caller's %s", got, base)
	}
}

// workspaceView is the part of csa inspect --json's workspace read here.
type workspaceView struct {
	Branch, Base, Snapshot, Head string
	Recorded                     bool
}

func (w *world) workspace(t *testing.T, id string) workspaceView {
	t.Helper()
	out, code, stderr := w.csa("inspect", "--json", id)
	if code != 0 {
		t.Fatalf("csa inspect %s: exit %d: %s", id, code, stderr)
	}
	var st struct{ Workspace *workspaceView }
	decode(t, out, &st)
	if st.Workspace == nil {
		t.Fatalf("session %s has no workspace: %s", id, out)
	}
	return *st.Workspace
}

func (w *world) has(t *testing.T, name, want string) {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(w.proj, name)); err != nil || string(b) != want {
		t.Fatalf("the caller's %s: %q (%v), want %q", name, b, err, want)
	}
}

// callerState is the caller's HEAD, index, status and the bytes of every
// file of the work tree: equal before and after means nothing of the
// caller's was touched.
func callerState(t *testing.T, dir string, git func(...string) string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(git("symbolic-ref", "HEAD") + git("rev-parse", "HEAD"))
	b.WriteString(git("ls-files", "--stage") + git("status", "--porcelain=v2", "--untracked-files=all"))
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.IsDir():
			return nil
		}
		data, err := os.ReadFile(p)
		fmt.Fprintf(&b, "%s %x\n", p, sha256.Sum256(data))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
