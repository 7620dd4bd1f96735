package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/testkit/gitrepo"
)

// gitIn runs git in dir with a fixed identity and no user config.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return gitrepo.Run(t, dir, gitrepo.Env("u", "u@u"), args...)
}

// gitProject makes the test's project a repository with f.txt committed,
// then changed (unstaged), a staged change and an untracked file; it
// returns the project, and a function telling the caller's status and
// index are as they were.
func gitProject(t *testing.T, e *env) (string, func()) {
	t.Helper()
	proj := filepath.Join(e.dir, "proj")
	gitIn(t, proj, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(proj, "f.txt"), []byte("base\n"), 0o644)
	os.WriteFile(filepath.Join(proj, "s.txt"), []byte("s\n"), 0o644)
	gitIn(t, proj, "add", ".")
	gitIn(t, proj, "commit", "-q", "-m", "base")
	os.WriteFile(filepath.Join(proj, "s.txt"), []byte("staged\n"), 0o644)
	gitIn(t, proj, "add", "s.txt")
	os.WriteFile(filepath.Join(proj, "f.txt"), []byte("uncommitted\n"), 0o644)
	os.WriteFile(filepath.Join(proj, "u.txt"), []byte("untracked\n"), 0o644)
	status := gitIn(t, proj, "status", "--porcelain")
	index, _ := os.ReadFile(filepath.Join(proj, ".git", "index"))
	head := gitIn(t, proj, "rev-parse", "HEAD")
	return proj, func() {
		t.Helper()
		now, _ := os.ReadFile(filepath.Join(proj, ".git", "index"))
		if got := gitIn(t, proj, "status", "--porcelain"); got != status || string(now) != string(index) {
			t.Errorf("the caller's tree or index changed:\n%s\nwas\n%s", got, status)
		}
		if got := gitIn(t, proj, "rev-parse", "HEAD"); got != head {
			t.Errorf("the caller's HEAD moved to %s", got)
		}
		if b, _ := os.ReadFile(filepath.Join(proj, "f.txt")); string(b) != "uncommitted\n" {
			t.Errorf("the caller's f.txt: %q", b)
		}
	}
}

func (e *env) state(id string) *session.State {
	e.t.Helper()
	var st session.State
	if err := json.Unmarshal([]byte(e.csa(0, "inspect", "--json", id)), &st); err != nil {
		e.t.Fatal(err)
	}
	return &st
}

// A worktree run: the agent sees the caller's uncommitted changes, its
// own change is committed on its branch (author csa, the prompt's first
// line, the trailers), the caller's tree and index are unchanged, and the
// worktree's folder is gone while the branch stays.
func TestWorktreeRun(t *testing.T) {
	e := newEnv(t)
	proj, unchanged := gitProject(t, e)
	var res struct {
		SessionID string `json:"session_id"`
		Status    string `json:"status"`
	}
	out := e.csa(0, "run", "--json", "-w", "--tool", "codex", "copy f.txt seen.txt; copy u.txt seen-u.txt; write f.txt agent; echo done")
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Status != "completed" {
		t.Fatalf("run: %v %s", err, out)
	}
	unchanged()
	ws := e.state(res.SessionID).Workspace
	if ws == nil || !ws.Recorded || ws.Dir != "" || ws.Branch != "csa/"+res.SessionID[:10] || ws.Files != 3 {
		t.Fatalf("workspace %+v", ws)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "state", "projects")); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{"seen.txt": "uncommitted\n", "seen-u.txt": "untracked\n", "f.txt": "agent\n", "s.txt": "staged\n"} {
		if got := gitIn(t, proj, "show", ws.Branch+":"+file); got != want {
			t.Errorf("%s on the branch: %q, want %q", file, got, want)
		}
	}
	if got := gitIn(t, proj, "rev-parse", ws.Branch); strings.TrimSpace(got) != ws.Head {
		t.Errorf("branch at %s, head %s", got, ws.Head)
	}
	if got := strings.TrimSpace(gitIn(t, proj, "rev-parse", "HEAD")); got != ws.Base {
		t.Errorf("base %s, HEAD %s", ws.Base, got)
	}
	msg := gitIn(t, proj, "log", "-1", "--format=%an <%ae>%n%s%n%(trailers:only,unfold)", ws.Head)
	want := fmt.Sprintf("csa <csa@localhost>\ncopy f.txt seen.txt; copy u.txt seen-u.txt; write f.txt agent; echo done\nCSA-Session: %s\nCSA-Tool: codex\n", res.SessionID)
	if strings.TrimSpace(msg) != strings.TrimSpace(want) {
		t.Errorf("commit:\n%s\nwant\n%s", msg, want)
	}
	if list := gitIn(t, proj, "worktree", "list", "--porcelain"); strings.Contains(list, res.SessionID) {
		t.Errorf("git still lists the worktree:\n%s", list)
	}
	var rows []map[string]any
	json.Unmarshal([]byte(e.csa(0, "ps", "--json")), &rows)
	if len(rows) != 1 || rows[0]["branch"] != ws.Branch || rows[0]["files"] != float64(3) {
		t.Errorf("ps --json: %v", rows)
	}
	if table := e.csa(0, "ps"); !strings.Contains(table, ws.Branch) || !strings.Contains(table, "3 files +3 -1") {
		t.Errorf("ps:\n%s", table)
	}
	if text := e.csa(0, "inspect", res.SessionID); !strings.Contains(text, "[workspace]") ||
		!strings.Contains(text, fmt.Sprintf("branch = '%s'", ws.Branch)) || !strings.Contains(text, "insertions = 3") {
		t.Errorf("inspect:\n%s", text)
	}
}

// Outside a git work tree a worktree run is refused with exit 2, the
// reason said, and no session made.
func TestWorktreeRefusedOutsideGit(t *testing.T) {
	e := newEnv(t)
	c := e.cmd("run", "-w", "--tool", "codex", "echo hi")
	out, err := c.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("exit: %v, want 2\n%s", err, out)
	}
	if !strings.Contains(string(out), "not inside a git work tree") {
		t.Errorf("no reason given: %s", out)
	}
	if rows := e.ps(); len(rows) != 0 {
		t.Errorf("sessions made: %+v", rows)
	}
	// A repository with no commit has no HEAD to branch from.
	gitIn(t, filepath.Join(e.dir, "proj"), "init", "-q")
	out, err = e.cmd("run", "-w", "--tool", "codex", "echo hi").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "no commit yet") {
		t.Fatalf("in a repository with no commit: %v\n%s", err, out)
	}
	if rows := e.ps(); len(rows) != 0 {
		t.Errorf("sessions made: %+v", rows)
	}
}

// Eight runs at once editing the same file differently: each branch holds
// exactly its own edit, from the same snapshot, and the caller's tree is
// unchanged.
func TestWorktreeParallelRuns(t *testing.T) {
	e := newEnv(t)
	proj, unchanged := gitProject(t, e)
	const n = 8
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := e.cmd("run", "--json", "-w", "--tool", "codex", "write f.txt run "+strconv.Itoa(i)+"; echo done")
			out, err := c.Output()
			var res struct {
				SessionID string `json:"session_id"`
			}
			if err != nil || json.Unmarshal(out, &res) != nil {
				var stderr []byte
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = ee.Stderr
				}
				t.Errorf("run %d: %v %s\n%s", i, err, out, stderr)
				return
			}
			ids[i] = res.SessionID
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	unchanged()
	snapshots := map[string]bool{}
	for i, id := range ids {
		ws := e.state(id).Workspace
		if ws == nil || !ws.Recorded {
			t.Fatalf("run %d: workspace %+v", i, ws)
		}
		snapshots[gitIn(t, proj, "rev-parse", ws.Snapshot+"^{tree}")] = true
		if got := gitIn(t, proj, "show", ws.Branch+":f.txt"); got != fmt.Sprintf("run %d\n", i) {
			t.Errorf("run %d: f.txt on %s is %q", i, ws.Branch, got)
		}
		if got := gitIn(t, proj, "diff", "--name-only", ws.Snapshot, ws.Head); got != "f.txt\n" {
			t.Errorf("run %d changed %q", i, got)
		}
	}
	if len(snapshots) != 1 {
		t.Errorf("the runs started from %d different trees", len(snapshots))
	}
}

// A supervisor SIGKILLed while its agent works still leaves the change
// committed: the next csa command that reconciles the session records it.
func TestWorktreeSupervisorKilled(t *testing.T) {
	e := newEnv(t)
	proj, unchanged := gitProject(t, e)
	pidfile := filepath.Join(e.dir, "agent.pid")
	c := e.cmd("run", "-w", "--tool", "codex", "write f.txt before the kill; pidfile "+pidfile+"; sleep 60s")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	agent, _ := strconv.Atoi(waitFile(t, pidfile))
	e.waitRunning()
	c.Process.Kill()
	c.Wait()
	waitDead(t, agent)

	rows := e.ps()
	if len(rows) != 1 || rows[0].State != "crashed" {
		t.Fatalf("want one crashed session, got %+v", rows)
	}
	ws := e.state(rows[0].ID).Workspace
	if ws == nil || !ws.Recorded || ws.Dir != "" || ws.Files != 1 {
		t.Fatalf("workspace %+v", ws)
	}
	if got := gitIn(t, proj, "show", ws.Branch+":f.txt"); got != "before the kill\n" {
		t.Errorf("f.txt on the branch: %q", got)
	}
	unchanged()
}

// A run inside a worktree run works in its parent's worktree, even with
// defaults.worktree on, unless it asks for one itself.
func TestWorktreeNestedRun(t *testing.T) {
	e := newEnv(t)
	proj, unchanged := gitProject(t, e)
	cfg := filepath.Join(e.dir, "cfg", "config.toml")
	b, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, append([]byte("[defaults]\nworktree = true\n"), b...), 0o600)
	out := e.csa(0, "run", "--json", "--tool", "codex", "write parent.txt p; csa run --tool codex 'write child.txt c; echo c'; echo done")
	var res struct {
		SessionID string `json:"session_id"`
	}
	json.Unmarshal([]byte(out), &res)
	unchanged()
	ws := e.state(res.SessionID).Workspace
	if ws == nil || !ws.Recorded {
		t.Fatalf("parent's workspace %+v", ws)
	}
	if got := gitIn(t, proj, "show", ws.Branch+":child.txt"); got != "c\n" {
		t.Errorf("child.txt on the parent's branch: %q", got)
	}
	for _, r := range e.ps() {
		if r.ID != res.SessionID {
			if child := e.state(r.ID); child.Workspace != nil {
				t.Errorf("the nested run made a worktree of its own: %+v", child.Workspace)
			}
		}
	}
}

// --keep-worktree keeps the folder once the change is recorded; csa gc
// removes it (and git's entry for it) and keeps the branch.
func TestWorktreeKeptThenCollected(t *testing.T) {
	e := newEnv(t)
	proj, unchanged := gitProject(t, e)
	out := e.csa(0, "run", "--json", "-w", "--keep-worktree", "--tool", "codex", "write f.txt kept; echo done")
	var res struct {
		SessionID string `json:"session_id"`
	}
	json.Unmarshal([]byte(out), &res)
	ws := e.state(res.SessionID).Workspace
	if ws == nil || !ws.Recorded || !ws.Keep || ws.Dir == "" {
		t.Fatalf("workspace %+v", ws)
	}
	if b, err := os.ReadFile(filepath.Join(ws.Dir, "f.txt")); err != nil || string(b) != "kept\n" {
		t.Fatalf("the kept worktree's f.txt: %q %v", b, err)
	}
	if !strings.Contains(gitIn(t, proj, "worktree", "list"), ws.Dir) {
		t.Fatal("git does not list the kept worktree")
	}
	var gc struct {
		Worktrees []struct{ Path, Reason string } `json:"worktrees"`
	}
	if err := json.Unmarshal([]byte(e.csa(0, "gc", "--json")), &gc); err != nil || len(gc.Worktrees) != 1 || gc.Worktrees[0].Path != ws.Dir {
		t.Fatalf("gc: %v %+v", err, gc)
	}
	if _, err := os.Stat(ws.Dir); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
	if strings.Contains(gitIn(t, proj, "worktree", "list"), ws.Dir) {
		t.Error("git still lists the worktree")
	}
	if after := e.state(res.SessionID).Workspace; after.Dir != "" || after.Head != ws.Head {
		t.Errorf("after gc: %+v", after)
	}
	if got := gitIn(t, proj, "show", ws.Branch+":f.txt"); got != "kept\n" {
		t.Errorf("the branch lost the change: %q", got)
	}
	unchanged()
}

// A detached worktree run: its background supervisor records the change
// before the state that ends the run, so `csa wait` sees it recorded.
func TestWorktreeDetached(t *testing.T) {
	e := newEnv(t)
	proj, unchanged := gitProject(t, e)
	id := strings.TrimSpace(e.csa(0, "run", "-d", "-w", "--tool", "codex", "write sub.txt detached; echo done"))
	e.csa(0, "wait", id)
	ws := e.state(id).Workspace
	if ws == nil || !ws.Recorded || ws.Dir != "" || ws.Files != 1 {
		t.Fatalf("workspace %+v", ws)
	}
	if got := gitIn(t, proj, "show", ws.Branch+":sub.txt"); got != "detached\n" {
		t.Errorf("sub.txt on the branch: %q", got)
	}
	unchanged()
}

// An interactive worktree run (csa run -i -w): the agent in its pane works
// in the worktree, and its change is recorded when the session is killed.
func TestWorktreeInteractive(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	e := newEnv(t)
	proj, unchanged := gitProject(t, e)
	var res struct {
		SessionID string `json:"session_id"`
	}
	out := e.csa(0, "run", "-i", "-w", "--json", "--tool", "gemini-cli", "write pane.txt from the pane")
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.cmd("kill", res.SessionID).Run() })
	ws := e.state(res.SessionID).Workspace
	if ws == nil || ws.Dir == "" {
		t.Fatalf("workspace %+v", ws)
	}
	if got := waitFile(t, filepath.Join(ws.Dir, "pane.txt")); got != "from the pane\n" {
		t.Fatalf("pane.txt in the worktree: %q", got)
	}
	e.csa(0, "kill", res.SessionID)
	e.csa(1, "wait", res.SessionID) // exit 1: the session did not complete
	ws = e.state(res.SessionID).Workspace
	if !ws.Recorded || ws.Dir != "" || ws.Files != 1 {
		t.Fatalf("workspace after the kill %+v", ws)
	}
	if got := gitIn(t, proj, "show", ws.Branch+":pane.txt"); got != "from the pane\n" {
		t.Errorf("pane.txt on the branch: %q", got)
	}
	unchanged()
}

// Worktree runs and the commands that take their change back (csa apply,
// csa merge): the change of one applies to the caller's tree, a second
// one's conflicting change exits 1 and leaves the tree as it was, and a
// third one's merges.
func TestWorktreeRunsTakenBack(t *testing.T) {
	e := newEnv(t)
	proj := filepath.Join(e.dir, "proj")
	gitIn(t, proj, "init", "-q", "-b", "main")
	// csa merge commits as the user (HOME is the test's own).
	gitIn(t, proj, "config", "user.name", "u")
	gitIn(t, proj, "config", "user.email", "u@u")
	os.WriteFile(filepath.Join(proj, "f.txt"), []byte("one\ntwo\nthree\n"), 0o644)
	gitIn(t, proj, "add", ".")
	gitIn(t, proj, "commit", "-q", "-m", "base")
	ids := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, script := range map[string]string{
		"a": "write f.txt one by a; echo done", "b": "write f.txt one by b; echo done", "c": "write c.txt by c; echo done",
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := e.cmd("run", "-w", "--json", "--tool", "codex", script).Output()
			var res struct {
				SessionID string `json:"session_id"`
			}
			if err != nil || json.Unmarshal(out, &res) != nil {
				t.Errorf("run %s: %v %s", name, err, out)
			}
			mu.Lock()
			ids[name] = res.SessionID
			mu.Unlock()
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	e.csa(0, "apply", ids["a"])
	if b, _ := os.ReadFile(filepath.Join(proj, "f.txt")); string(b) != "one by a\n" {
		t.Fatalf("f.txt after applying a: %q", b)
	}
	gitIn(t, proj, "commit", "-q", "-am", "a's change")
	e.csa(1, "apply", ids["b"])
	if b, _ := os.ReadFile(filepath.Join(proj, "f.txt")); string(b) != "one by a\n" {
		t.Errorf("a conflicting apply changed f.txt: %q", b)
	}
	if st := gitIn(t, proj, "status", "--porcelain"); st != "" {
		t.Errorf("a conflicting apply left changes:\n%s", st)
	}
	e.csa(0, "merge", ids["c"])
	if got := gitIn(t, proj, "show", "HEAD:c.txt"); got != "by c\n" {
		t.Errorf("c.txt after the merge: %q", got)
	}
	if got := gitIn(t, proj, "show", "HEAD:f.txt"); got != "one by a\n" {
		t.Errorf("f.txt after the merge: %q", got)
	}
}
