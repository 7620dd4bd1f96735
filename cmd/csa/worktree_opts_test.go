package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// projectConfig writes the test project's .csa/config.toml.
func projectConfig(t *testing.T, e *env, toml string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(e.dir, "proj", ".csa", "config.toml"), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
}

// runID runs csa run --json with args and returns the session's id.
func (e *env) runID(args ...string) string {
	e.t.Helper()
	var res struct {
		SessionID string `json:"session_id"`
		Status    string `json:"status"`
	}
	out := e.csa(0, append([]string{"run", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Status != "completed" {
		e.t.Fatalf("run %q: %v %s", args, err, out)
	}
	return res.SessionID
}

// refused runs csa with args, wants exit 2 with msg on stderr, and no
// session more than before.
func (e *env) refused(msg string, args ...string) {
	e.t.Helper()
	before := len(e.ps())
	out, err := e.cmd(args...).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), msg) {
		e.t.Errorf("csa %q: %v\n%s\nwant exit 2 and %q", args, err, out, msg)
	}
	if after := len(e.ps()); after != before {
		e.t.Errorf("csa %q made a session (%d, was %d)", args, after, before)
	}
}

// A worktree run's branch: the configured template with {tool}, {date}
// and {id}; a tool's template over it; a template's name taken gets the
// whole id appended; --branch names it exactly, and is refused (exit 2,
// no session) when that branch exists or git would not take the name,
// as is a template making a name git would not take.
func TestWorktreeBranchNames(t *testing.T) {
	e := newEnv(t)
	projectConfig(t, e, "[defaults]\nworktree_branch = \"agents/{tool}/{date}-{id}\"\n[tools.gemini-cli]\nworktree_branch = \"gem\"\n")
	proj, unchanged := gitProject(t, e)

	id := e.runID("-w", "--tool", "codex", "write f.txt by template; echo done")
	st := e.state(id)
	want := "agents/codex/" + st.CreatedAt.Local().Format("20060102") + "-" + id[:10]
	if st.Workspace == nil || st.Workspace.Branch != want {
		t.Fatalf("branch %+v, want %s", st.Workspace, want)
	}
	if got := gitIn(t, proj, "show", want+":f.txt"); got != "by template\n" {
		t.Errorf("f.txt on %s: %q", want, got)
	}

	first := e.runID("-w", "--tool", "gemini-cli", "write f.txt gem one; echo done")
	second := e.runID("-w", "--tool", "gemini-cli", "write f.txt gem two; echo done")
	if b := e.state(first).Workspace.Branch; b != "gem" {
		t.Errorf("the tool's template gave %q, want gem", b)
	}
	if b := e.state(second).Workspace.Branch; b != "gem-"+second {
		t.Errorf("the template's name taken: %q, want gem-%s", b, second)
	}
	if got := gitIn(t, proj, "show", "gem-"+second+":f.txt"); got != "gem two\n" {
		t.Errorf("f.txt on the second branch: %q", got)
	}

	exact := e.runID("-w", "--branch", "feature/é-x", "--tool", "codex", "write f.txt exact; echo done")
	if b := e.state(exact).Workspace.Branch; b != "feature/é-x" {
		t.Errorf("--branch gave %q", b)
	}
	if got := gitIn(t, proj, "show", "feature/é-x:f.txt"); got != "exact\n" {
		t.Errorf("f.txt on feature/é-x: %q", got)
	}
	e.refused("--branch: the branch exists already: feature/é-x", "run", "-w", "--branch", "feature/é-x", "--tool", "codex", "echo hi")
	e.refused(`--branch: "bad..name" is not a valid branch name`, "run", "-w", "--branch", "bad..name", "--tool", "codex", "echo hi")
	e.refused(`--branch: "-x" is not a valid branch name`, "run", "-w", "--branch=-x", "--tool", "codex", "echo hi")
	e.refused("--branch goes with --worktree", "run", "--branch", "other", "--tool", "codex", "echo hi")
	unchanged()

	projectConfig(t, e, "[defaults]\nworktree_branch = \"csa/{id}.lock\"\n")
	e.refused("defaults.worktree_branch: \"csa/", "run", "-w", "--tool", "codex", "echo hi")
	projectConfig(t, e, "[defaults]\nworktree_branch = \"csa/{user}\"\n")
	e.refused("unknown placeholder {user}", "run", "-w", "--tool", "codex", "echo hi")
	if branches := gitIn(t, proj, "branch", "--list", "--format=%(refname:short)"); strings.Count(branches, "\n") != 5 {
		t.Errorf("branches:\n%s", branches)
	}
}

// Submodules: without --worktree-submodules a worktree's submodule
// folder is empty (git worktree add checks none out) and recording the
// run changes nothing of it; with it, or defaults.worktree_submodules,
// the submodule's files are there for the agent. csa gc removes the
// kept worktrees, submodules and all.
func TestWorktreeSubmodules(t *testing.T) {
	e := newEnv(t)
	lib, proj := filepath.Join(e.dir, "lib"), filepath.Join(e.dir, "proj")
	os.MkdirAll(lib, 0o755)
	gitIn(t, lib, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(lib, "lib.txt"), []byte("library\n"), 0o644)
	gitIn(t, lib, "add", ".")
	gitIn(t, lib, "commit", "-q", "-m", "lib")
	gitIn(t, proj, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(proj, "f.txt"), []byte("base\n"), 0o644)
	gitIn(t, proj, "add", "f.txt")
	gitIn(t, proj, "-c", "protocol.file.allow=always", "submodule", "--quiet", "add", lib, "vendor/lib")
	gitIn(t, proj, "commit", "-q", "-m", "with a submodule")
	// The submodule is a local repository: git refuses the file protocol
	// for submodules unless configured to allow it. Refused, the run fails
	// before its session is made, leaving no worktree and no branch.
	out, err := e.cmd("run", "-w", "--worktree-submodules", "--tool", "codex", "echo hi").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "check out the submodules of the run's worktree") {
		t.Errorf("submodules that cannot be checked out: %v\n%s", err, out)
	}
	if rows := e.ps(); len(rows) != 0 {
		t.Errorf("sessions made: %+v", rows)
	}
	if b, l := gitIn(t, proj, "branch", "--list", "--format=%(refname:short)"), gitIn(t, proj, "worktree", "list"); b != "main\n" || strings.Count(l, "\n") != 1 {
		t.Errorf("left behind: branches\n%s worktrees\n%s", b, l)
	}
	e.vars = append(e.vars, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=protocol.file.allow", "GIT_CONFIG_VALUE_0=always")

	run := func(args ...string) (dir, branch string, files int) {
		t.Helper()
		id := e.runID(append([]string{"-w", "--keep-worktree", "--tool", "codex"}, args...)...)
		ws := e.state(id).Workspace
		if ws == nil || !ws.Recorded || ws.Dir == "" {
			t.Fatalf("workspace %+v", ws)
		}
		return ws.Dir, ws.Branch, ws.Files
	}
	const seen = "copy vendor/lib/lib.txt seen.txt; write own.txt x; echo done"
	without, branch, files := run(seen)
	if ents, err := os.ReadDir(filepath.Join(without, "vendor", "lib")); err != nil || len(ents) != 0 {
		t.Errorf("without the option the submodule's folder holds %v (%v)", ents, err)
	}
	if files != 1 || gitIn(t, proj, "ls-tree", "--name-only", "-r", branch) != ".gitmodules\nf.txt\nown.txt\nvendor/lib\n" {
		t.Errorf("without the option the change is %d files:\n%s", files, gitIn(t, proj, "ls-tree", "-r", branch))
	}

	with, branch, files := run("--worktree-submodules", seen)
	if b, err := os.ReadFile(filepath.Join(with, "vendor", "lib", "lib.txt")); err != nil || string(b) != "library\n" {
		t.Errorf("with --worktree-submodules the submodule's lib.txt: %q %v", b, err)
	}
	if got := gitIn(t, proj, "show", branch+":seen.txt"); got != "library\n" || files != 2 {
		t.Errorf("the agent saw %q in the submodule; the change is %d files", got, files)
	}

	projectConfig(t, e, "[defaults]\nworktree_submodules = true\n")
	configured, _, _ := run("write own.txt y; echo done")
	if _, err := os.Stat(filepath.Join(configured, "vendor", "lib", "lib.txt")); err != nil {
		t.Errorf("with defaults.worktree_submodules: %v", err)
	}
	off, _, _ := run("--worktree-submodules=false", "write own.txt z; echo done")
	if _, err := os.Stat(filepath.Join(off, "vendor", "lib", "lib.txt")); !os.IsNotExist(err) {
		t.Errorf("--worktree-submodules=false over the configuration: %v", err)
	}

	e.csa(0, "gc")
	for _, dir := range []string{without, with, configured, off} {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("gc left %s: %v", dir, err)
		}
	}
	if list := gitIn(t, proj, "worktree", "list"); strings.Count(list, "\n") != 1 {
		t.Errorf("git still lists worktrees:\n%s", list)
	}
}
