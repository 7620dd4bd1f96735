package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/cluster/clustertest"
	"github.com/csa-dev/csa/internal/session"
)

// csa run --cd B --remote, run in project A, is B's remote run: csa
// decides to go remote from B's configuration, and the request it hands
// over carries B's project, so the cluster is B's too. (csa-cluster used
// to load the configuration of its own working directory, A, which
// configures no cluster: "no cluster configured", exit 2.) The request
// goes over as JSON: a prompt that is not UTF-8 reaches the worker's
// local run byte for byte.
func TestRemoteRunTakesTheProjectOfCd(t *testing.T) {
	c := clustertest.Start(t, 3)
	a, b := projectDir(t), projectDir(t)
	if err := os.MkdirAll(filepath.Join(b, ".csa"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b, ".csa", "config.toml"), []byte(fmt.Sprintf("[cluster]\nurl = %q\n", c.URL())), 0o600); err != nil {
		t.Fatal(err)
	}
	caller := newMachine(t, "caller", "") // no cluster but B's
	w := newMachine(t, "w", c.URL())
	w.startWorker(t, b, "--name", "w")
	waitWorkers(t, w, b, 1)

	// Over 200 bytes: the worker's run keeps it in prompt.txt.
	prompt := "stderr \xff\xfe " + strings.Repeat("x", 200) + "; echo from-b"
	out, code, stderr := caller.csaCode(a, "run", "--cd", b, "--remote", "--remote-cwd", "--tool", "codex", prompt)
	if code != 0 {
		t.Fatalf("csa run --cd %s --remote in %s: exit %d: %s", b, a, code, stderr)
	}
	id := strings.TrimSpace(out)
	if len(id) != session.IDLen {
		t.Fatalf("csa run --remote printed %q, not a session id", out)
	}
	caller.csa(t, b, "wait", "--timeout", "60s", id)
	for _, r := range caller.records(t, b) {
		if r.ID != id {
			continue
		}
		if r.Status != session.Completed || r.Result != "from-b" || r.Cwd != b || r.ProjectRoot != b {
			t.Errorf("session %s: state %s, result %q, cwd %s, project %s; want completed, from-b, %s, %s",
				id, r.Status, r.Result, r.Cwd, r.ProjectRoot, b, b)
		}
		files, _ := filepath.Glob(filepath.Join(w.dir, "state", "projects", "*", "sessions", r.Remote.LocalID, "prompt.txt"))
		if r.Remote.LocalID == "" || len(files) != 1 {
			t.Fatalf("session %s: no local session %q on the worker", id, r.Remote.LocalID)
		}
		if got, err := os.ReadFile(files[0]); err != nil || string(got) != prompt {
			t.Errorf("the worker's run has the prompt %q (%v), want %q", got, err, prompt)
		}
		return
	}
	t.Fatalf("session %s has no record", id)
}
