package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// csa run -w --worktree-base BRANCH starts from that branch, not from the
// caller's tree: a run on the first run's branch sees its edit, and its
// own branch holds both edits and none of the caller's uncommitted
// changes. The flag without -w, or naming no commit, is refused with exit
// 2 and no session made.
func TestWorktreeBaseRun(t *testing.T) {
	e := newEnv(t)
	proj, unchanged := gitProject(t, e)
	run := func(args ...string) string {
		t.Helper()
		var res struct {
			SessionID string `json:"session_id"`
			Status    string `json:"status"`
		}
		out := e.csa(0, append([]string{"run", "--json", "-w", "--tool", "codex"}, args...)...)
		if err := json.Unmarshal([]byte(out), &res); err != nil || res.Status != "completed" {
			t.Fatalf("run: %v %s", err, out)
		}
		return res.SessionID
	}
	first := e.state(run("write one.txt first; echo done")).Workspace
	second := e.state(run("--worktree-base", first.Branch, "copy one.txt seen.txt; write two.txt second; echo done")).Workspace
	unchanged()
	if second == nil || !second.Recorded || second.Base != first.Head || second.Snapshot != first.Head {
		t.Fatalf("second workspace %+v, want it from %s", second, first.Head)
	}
	for file, want := range map[string]string{"seen.txt": "first\n", "one.txt": "first\n", "two.txt": "second\n", "f.txt": "uncommitted\n"} {
		if got := gitIn(t, proj, "show", second.Branch+":"+file); got != want {
			t.Errorf("%s on %s: %q, want %q", file, second.Branch, got, want)
		}
	}
	if got := gitIn(t, proj, "diff", "--name-only", second.Snapshot, second.Head); got != "seen.txt\ntwo.txt\n" {
		t.Errorf("the second run's change: %q", got)
	}
	// A commit works as well as a branch: the base commit itself, so the
	// caller's uncommitted f.txt is not there.
	head := strings.TrimSpace(gitIn(t, proj, "rev-parse", "HEAD"))
	third := e.state(run("--worktree-base", head, "copy f.txt seen.txt; echo done")).Workspace
	if got := gitIn(t, proj, "show", third.Branch+":seen.txt"); got != "base\n" {
		t.Errorf("a run from HEAD saw f.txt as %q, want the committed base", got)
	}
	unchanged()

	for _, args := range [][]string{
		{"run", "--tool", "codex", "--worktree-base", first.Branch, "echo hi"},
		{"run", "-w", "--tool", "codex", "--worktree-base", "no-such-branch", "echo hi"},
	} {
		out, err := e.cmd(args...).CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "--worktree-base") {
			t.Errorf("csa %v: %v, want exit 2 naming --worktree-base\n%s", args, err, out)
		}
	}
	if rows := e.ps(); len(rows) != 3 {
		t.Errorf("sessions: %d, want the 3 runs only", len(rows))
	}
}

// A workflow step with Base: steps.1 starts from step 1's branch: it sees
// step 1's edit, its branch holds both edits, and the caller's tree is
// unchanged. No front matter asks for worktrees: Base implies one.
func TestWorktreeBaseWorkflow(t *testing.T) {
	e := newEnv(t)
	proj, unchanged := gitProject(t, e)
	wf := "+++\nname = \"chain\"\ntool = \"codex\"\n+++\n\n" +
		"## Step 1: One\nWorktree: true\nwrite one.txt first; echo done\n\n" +
		"## Step 2: Two\nBase: steps.1\ncopy one.txt seen.txt; write two.txt second; echo done\n"
	wfFile := filepath.Join(e.dir, "chain.md")
	os.WriteFile(wfFile, []byte(wf), 0o644)
	var st struct {
		State string `json:"state"`
		Steps []struct {
			SessionID string `json:"session_id"`
		} `json:"steps"`
	}
	out := e.csa(0, "--json", "workflow", "run", wfFile)
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.State != "completed" || len(st.Steps) != 2 {
		t.Fatalf("workflow run: %v %s", err, out)
	}
	unchanged()
	first, second := e.state(st.Steps[0].SessionID).Workspace, e.state(st.Steps[1].SessionID).Workspace
	if first == nil || second == nil || !second.Recorded || second.Base != first.Head {
		t.Fatalf("workspaces %+v and %+v: step 2 not from step 1's head", first, second)
	}
	for file, want := range map[string]string{"seen.txt": "first\n", "one.txt": "first\n", "two.txt": "second\n"} {
		if got := gitIn(t, proj, "show", second.Branch+":"+file); got != want {
			t.Errorf("%s on %s: %q, want %q", file, second.Branch, got, want)
		}
	}
	if got := gitIn(t, proj, "diff", "--name-only", first.Head, second.Head); got != "seen.txt\ntwo.txt\n" {
		t.Errorf("step 2's change over step 1's: %q", got)
	}
}
