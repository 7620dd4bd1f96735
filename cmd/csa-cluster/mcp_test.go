package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/cluster/clustertest"
	"github.com/csa-dev/csa/internal/mcp/hub"
	"github.com/csa-dev/csa/internal/mcp/mcptest"
)

// mcpStatus is `csa mcp status --json` on m; ok is false when no hub runs.
func (m *machine) mcpStatus(t *testing.T) (r hub.Report, ok bool) {
	t.Helper()
	out, code, stderr := m.csaCode(m.dir, "mcp", "status", "--json")
	if code == 3 {
		return r, false
	}
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("%s: csa mcp status: exit %d: %s %s", m.name, code, out, stderr)
	}
	return r, true
}

// Remote runs of one project on a worker share its project-scoped MCP
// servers in the caller's project, not one instance per scratch tree:
// three runs of the fake agent each call the stateful server-memory
// through the worker's hub (each tree a project of its own), every call
// reaches the one instance of the caller's project, whose graph lives
// there, and once the runs and their trees are gone no server-memory is
// left running.
func TestRemoteRunsShareTheCallersMCPScope(t *testing.T) {
	c := clustertest.Start(t, 3)
	caller := newMachine(t, "caller", c.URL())
	w := newMachine(t, "w1", c.URL())
	memory := mcptest.Require(t, mcptest.Memory)
	f, err := os.OpenFile(filepath.Join(w.dir, "cfg", "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "[mcp.servers.memory]\ncommand = %s\nscope = \"project\"\nenv = { MEMORY_FILE_PATH = \"{project}/memory.jsonl\" }\n",
		strconv.Quote(memory))
	f.Close()
	t.Cleanup(func() { w.csaCode(w.dir, "mcp", "stop") })
	w.startWorker(t, t.TempDir(), "--name", "w1")

	repo := filepath.Join(caller.dir, "repo")
	gitIn(t, caller.dir, "init", "-q", "-b", "main", repo)
	writeFile(t, filepath.Join(repo, ".gitignore"), "memory.jsonl\n")
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "first")
	waitWorkers(t, caller, repo, 1)

	for i := 1; i <= 3; i++ {
		prompt := fmt.Sprintf(`mcp create_entities {"entities":[{"name":"run-%d","entityType":"note","observations":["made remotely"]}]}; mcp read_graph {}`, i)
		id := strings.TrimSpace(caller.csa(t, repo, "run", "--remote", "--tool", "claude-code", prompt))
		if out, code, stderr := caller.csaCode(repo, "wait", "--timeout", "90s", id); code != 0 {
			t.Fatalf("run %d: csa wait: exit %d: %s %s", i, code, out, stderr)
		}
		var rec cluster.Record
		for _, r := range caller.records(t, repo) {
			if r.ID == id {
				rec = r
			}
		}
		for j := 1; j <= i; j++ { // the earlier runs' entities too: one graph
			if !strings.Contains(rec.Result, fmt.Sprintf("run-%d", j)) {
				t.Fatalf("run %d: %s, result %q; want run-1 to run-%d in the graph", i, rec.Status, rec.Result, i)
			}
		}
		if r, ok := w.mcpStatus(t); ok {
			for _, b := range r.Backends {
				if b.Name == "memory" && b.Project != repo {
					t.Fatalf("after run %d, a memory instance of %q, not of the caller's project %s", i, b.Project, repo)
				}
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(repo, "memory.jsonl")); err != nil || !strings.Contains(string(b), "run-3") {
		t.Fatalf("the caller's project's memory file: %v %q", err, b)
	}
	waitFor(t, 60*time.Second, "no memory server running on the worker once the runs are gone", func() bool {
		r, ok := w.mcpStatus(t)
		if !ok {
			return true
		}
		for _, b := range r.Backends {
			if b.Name == "memory" && b.PID != 0 {
				return false
			}
		}
		return true
	})
}
