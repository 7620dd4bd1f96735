package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/mcp/mcptest"
)

// Project-scoped instances live for their project's clients: none left
// for the idle time, or the project directory gone, and the instance
// stops; a client may share the instances of another project than its own
// (--scope: a remote run's scratch tree, its caller's project).

// memoryConf is server-memory, one instance per project, keeping its
// graph in the project.
func memoryConf(t *testing.T) string {
	return "[servers.memory]\ncommand = " + strconv.Quote(mcptest.Require(t, mcptest.Memory)) +
		"\nenv = { MEMORY_FILE_PATH = \"{project}/memory.jsonl\" }\nscope = \"project\"\n"
}

// remember stores an entity through cs and returns the graph cs reads.
func remember(t *testing.T, cs *mcp.ClientSession, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if name != "" {
		if _, err := callTool(ctx, cs, &mcp.CallToolParams{Name: "create_entities", Arguments: map[string]any{
			"entities": []any{map[string]any{"name": name, "entityType": "note", "observations": []string{"kept"}}},
		}}); err != nil {
			t.Fatal(err)
		}
	}
	g, err := callTool(ctx, cs, &mcp.CallToolParams{Name: "read_graph", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mkProject(t *testing.T, w *world, name string) string {
	p := filepath.Join(w.dir, name)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// The project directory removed after its agent has gone: its instance
// stops and the hub forgets it, while another project's runs on.
func TestRealProjectGoneStopsItsInstance(t *testing.T) {
	w := newWorld(t)
	h := startHub(t, w, memoryConf(t))
	gone, kept := mkProject(t, w, "gone"), mkProject(t, w, "kept")
	a := h.connect(t, nil, "--project", gone)
	b := h.connect(t, nil, "--project", kept)
	remember(t, a, "in-gone")
	remember(t, b, "in-kept")
	ga, gb := h.backend(t, "memory", gone), h.backend(t, "memory", kept)
	if ga.PID == 0 || gb.PID == 0 {
		t.Fatalf("instances: %+v %+v", ga, gb)
	}
	a.Close()
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the instance of the removed project stopped and forgotten", func() bool {
		return exited(ga.PID) && h.backend(t, "memory", gone).Name == ""
	})
	if now := h.backend(t, "memory", kept); now.PID != gb.PID || exited(gb.PID) {
		t.Fatalf("the other project's instance: %+v, was pid %d", now, gb.PID)
	}
}

// With no idle_ttl, a project's instance that no client has seen for the
// hub's idle exit stops, though the hub (kept up by another project's
// agent) does not; the project's next agent starts it again, its state
// kept in the project.
func TestRealProjectInstanceStopsWithNoClient(t *testing.T) {
	w := newWorld(t)
	h := startHub(t, w, memoryConf(t), "--idle-exit", "3s")
	left, stays := mkProject(t, w, "left"), mkProject(t, w, "stays")
	a := h.connect(t, nil, "--project", left)
	b := h.connect(t, nil, "--project", stays)
	remember(t, a, "before")
	remember(t, b, "")
	ga, gb := h.backend(t, "memory", left), h.backend(t, "memory", stays)
	a.Close()
	waitFor(t, "the instance no client sees stopped", func() bool {
		return exited(ga.PID) && h.backend(t, "memory", left).State == "stopped (idle)"
	})
	if now := h.backend(t, "memory", stays); now.PID != gb.PID || exited(gb.PID) {
		t.Fatalf("the instance with a client: %+v, was pid %d", now, gb.PID)
	}
	again := h.connect(t, nil, "--project", left)
	if g := remember(t, again, ""); !strings.Contains(g, "before") {
		t.Fatalf("the restarted instance's graph: %s", g)
	}
}

// Clients of two scratch trees that name one project as their scope share
// its instance, which keeps its state in that project. Once the trees are
// gone with their clients nothing gives the instance any more: it stops;
// the next run's instance finds the state.
func TestRealScopeSharesAProjectsInstance(t *testing.T) {
	w := newWorld(t)
	h := startHub(t, w, memoryConf(t))
	caller := mkProject(t, w, "caller")
	tree1, tree2 := mkProject(t, w, "tree1"), mkProject(t, w, "tree2")
	r1 := h.connect(t, nil, "--project", tree1, "--scope", caller)
	r2 := h.connect(t, nil, "--project", tree2, "--scope", caller)
	remember(t, r1, "from-run-1")
	if g := remember(t, r2, ""); !strings.Contains(g, "from-run-1") {
		t.Fatalf("the second run does not see the first's entity: %s", g)
	}
	rep := h.status(t)
	if len(rep.Backends) != 1 || rep.Backends[0].Project != caller || rep.Backends[0].PID == 0 {
		t.Fatalf("backends %+v, want one instance, of the caller's project", rep.Backends)
	}
	if b, err := os.ReadFile(filepath.Join(caller, "memory.jsonl")); err != nil || !strings.Contains(string(b), "from-run-1") {
		t.Fatalf("the caller's project's memory file: %v %s", err, b)
	}
	pid := rep.Backends[0].PID
	r1.Close()
	r2.Close()
	os.RemoveAll(tree1)
	os.RemoveAll(tree2)
	waitFor(t, "the instance given only by the removed trees stopped", func() bool {
		return exited(pid) && len(h.status(t).Backends) == 0
	})
	r3 := h.connect(t, nil, "--project", mkProject(t, w, "tree3"), "--scope", caller)
	if g := remember(t, r3, ""); !strings.Contains(g, "from-run-1") {
		t.Fatalf("the third run: %s", g)
	}
}
