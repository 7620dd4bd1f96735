package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A batch of 12 tasks run four at a time with --worktree, every one
// editing the same file: no two runs share a folder, every branch holds
// exactly its own task's change, and the caller's tree is unchanged. A
// thirteenth task with worktree = false runs in the caller's tree.
func TestWorktreeBatch(t *testing.T) {
	e := newEnv(t)
	proj, unchanged := gitProject(t, e)
	const n = 12
	var file strings.Builder
	for i := range n {
		fmt.Fprintf(&file, "[[task]]\nid = \"t%d\"\nprompt = \"write f.txt task %d; write own-%d.txt %d; echo done\"\ntool = \"codex\"\n", i, i, i, i)
	}
	file.WriteString("[[task]]\nid = \"here\"\nprompt = \"write inplace.txt here; echo done\"\ntool = \"codex\"\nworktree = false\n")
	batchFile := filepath.Join(e.dir, "tasks.toml")
	os.WriteFile(batchFile, []byte(file.String()), 0o644)

	var sum struct {
		Tasks []struct {
			ID        string `json:"id"`
			State     string `json:"state"`
			SessionID string `json:"session_id"`
		} `json:"tasks"`
	}
	out := e.csa(0, "--json", "batch", "--worktree", "--parallel", "4", batchFile)
	if err := json.Unmarshal([]byte(out), &sum); err != nil || len(sum.Tasks) != n+1 {
		t.Fatalf("batch summary: %v %s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(proj, "inplace.txt")); err != nil || string(b) != "here\n" {
		t.Errorf("the worktree = false task did not run in the caller's tree: %q %v", b, err)
	}
	os.Remove(filepath.Join(proj, "inplace.txt"))
	unchanged()

	dirs := map[string]string{}
	for _, task := range sum.Tasks {
		st := e.state(task.SessionID)
		if task.ID == "here" {
			if st.Workspace != nil || st.Cwd != proj {
				t.Errorf("task here: workspace %+v in %s", st.Workspace, st.Cwd)
			}
			continue
		}
		if task.State != "completed" {
			t.Errorf("task %s: %s", task.ID, task.State)
		}
		if other, ok := dirs[st.Cwd]; ok {
			t.Errorf("tasks %s and %s both ran in %s", other, task.ID, st.Cwd)
		}
		dirs[st.Cwd] = task.ID
		ws := st.Workspace
		if ws == nil || !ws.Recorded || st.Cwd == proj {
			t.Errorf("task %s: workspace %+v in %s", task.ID, ws, st.Cwd)
			continue
		}
		i := strings.TrimPrefix(task.ID, "t")
		if got := gitIn(t, proj, "diff", "--name-only", ws.Snapshot, ws.Head); got != "f.txt\nown-"+i+".txt\n" {
			t.Errorf("task %s's branch %s changed %q", task.ID, ws.Branch, got)
		}
		if got := gitIn(t, proj, "show", ws.Branch+":f.txt"); got != "task "+i+"\n" {
			t.Errorf("task %s: f.txt on %s is %q", task.ID, ws.Branch, got)
		}
	}
}

// csa todo run --worktree: the plan's tasks, run at once and editing the
// same file, each on a branch of its own; a task's worktree: false line
// keeps its run in the caller's tree.
func TestWorktreeTodoRun(t *testing.T) {
	e := newEnv(t)
	proj, unchanged := gitProject(t, e)
	plan := "# Edits\n\nstatus: approved\n\n" +
		"- [ ] A: edit\n  prompt: write f.txt from A; echo done\n" +
		"- [ ] B: edit\n  prompt: write f.txt from B; echo done\n" +
		"- [ ] C: here\n  worktree: false\n  prompt: write inplace.txt C; echo done\n"
	planFile := filepath.Join(e.dir, "plan.md")
	os.WriteFile(planFile, []byte(plan), 0o644)
	id := strings.TrimSpace(e.csa(0, "todo", "create", "Edits", "--from", planFile))
	var sum struct {
		Tasks []struct {
			ID        string `json:"id"`
			Outcome   string `json:"outcome"`
			SessionID string `json:"session_id"`
		} `json:"tasks"`
	}
	out := e.csa(0, "--json", "todo", "run", id, "--worktree", "--tool", "codex", "--parallel", "3")
	if err := json.Unmarshal([]byte(out), &sum); err != nil || len(sum.Tasks) != 3 {
		t.Fatalf("todo run: %v %s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(proj, "inplace.txt")); err != nil || string(b) != "C\n" {
		t.Errorf("task C did not run in the caller's tree: %q %v", b, err)
	}
	os.Remove(filepath.Join(proj, "inplace.txt"))
	unchanged()
	for _, task := range sum.Tasks[:2] {
		ws := e.state(task.SessionID).Workspace
		if ws == nil || !ws.Recorded {
			t.Fatalf("task %s: workspace %+v", task.ID, ws)
		}
		if got := gitIn(t, proj, "show", ws.Branch+":f.txt"); got != "from "+task.ID+"\n" {
			t.Errorf("task %s: f.txt on %s is %q", task.ID, ws.Branch, got)
		}
	}
	if ws := e.state(sum.Tasks[2].SessionID).Workspace; ws != nil {
		t.Errorf("task C had a worktree: %+v", ws)
	}
}

// A workflow with worktree = true runs its agent steps in worktrees of
// their own; a step's Worktree: false runs in the caller's tree.
func TestWorktreeWorkflow(t *testing.T) {
	e := newEnv(t)
	proj, unchanged := gitProject(t, e)
	wf := "+++\nname = \"w\"\ntool = \"codex\"\nworktree = true\n+++\n\n" +
		"## Step 1: One\nwrite f.txt one; echo done\n\n" +
		"## Step 2: Two\nwrite f.txt two; echo done\n\n" +
		"## Step 3: Here\nWorktree: false\nwrite inplace.txt three; echo done\n"
	wfFile := filepath.Join(e.dir, "w.md")
	os.WriteFile(wfFile, []byte(wf), 0o644)
	var st struct {
		State string `json:"state"`
		Steps []struct {
			Step      int    `json:"step"`
			SessionID string `json:"session_id"`
		} `json:"steps"`
	}
	out := e.csa(0, "--json", "workflow", "run", wfFile)
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.State != "completed" || len(st.Steps) != 3 {
		t.Fatalf("workflow run: %v %s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(proj, "inplace.txt")); err != nil || string(b) != "three\n" {
		t.Errorf("step 3 did not run in the caller's tree: %q %v", b, err)
	}
	os.Remove(filepath.Join(proj, "inplace.txt"))
	unchanged()
	for i, want := range []string{"one\n", "two\n"} {
		ws := e.state(st.Steps[i].SessionID).Workspace
		if ws == nil || !ws.Recorded {
			t.Fatalf("step %d: workspace %+v", i+1, ws)
		}
		if got := gitIn(t, proj, "show", ws.Branch+":f.txt"); got != want {
			t.Errorf("step %d: f.txt on %s is %q", i+1, ws.Branch, got)
		}
	}
	if ws := e.state(st.Steps[2].SessionID).Workspace; ws != nil {
		t.Errorf("step 3 had a worktree: %+v", ws)
	}
}

// Every attempt of a tier starts from the same snapshot: the first
// attempt changes the caller's f.txt (by its absolute path) before it
// fails over, and the second still sees f.txt as the caller had it when
// the run began.
func TestWorktreeTierSameSnapshot(t *testing.T) {
	e := newEnv(t)
	proj, _ := gitProject(t, e)
	cfg := "[tiers.t]\nmodels = [\"codex/p1/m1\", \"codex/p2/m2\"]\n[failover]\nretries = 0\n"
	os.WriteFile(filepath.Join(proj, ".csa", "config.toml"), []byte(cfg), 0o644)
	out := e.csa(0, "run", "--json", "-w", "--tier", "t",
		"copy f.txt seen.txt; write "+filepath.Join(proj, "f.txt")+" moved; ratelimited m1; echo done")
	var res struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("run: %v %s", err, out)
	}
	ws := e.state(res.SessionID).Workspace
	if ws == nil || !ws.Recorded {
		t.Fatalf("workspace %+v", ws)
	}
	if got := gitIn(t, proj, "show", ws.Branch+":seen.txt"); got != "uncommitted\n" {
		t.Errorf("the second attempt saw f.txt as %q, want the snapshot's", got)
	}
}
