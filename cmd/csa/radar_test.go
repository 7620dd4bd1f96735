package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

type overlapRow struct {
	ID       string `json:"id"`
	State    string `json:"state"`
	Overlaps []struct {
		With  string   `json:"with"`
		Paths []string `json:"paths"`
	} `json:"overlaps"`
}

func (e *env) overlapRows() map[string]overlapRow {
	e.t.Helper()
	var rows []overlapRow
	if err := json.Unmarshal([]byte(e.csa(0, "ps", "--json")), &rows); err != nil {
		e.t.Fatal(err)
	}
	out := map[string]overlapRow{}
	for _, r := range rows {
		out[r.ID] = r
	}
	return out
}

// The overlap radar: two live worktree runs of one repository editing
// one file (and one file each of their own) are flagged by csa ps with
// that file alone, on_overlap fires once for the pair, and again for a
// second file they then both edit, with that file alone; once they have
// ended nothing is flagged.
func TestOverlapRadar(t *testing.T) {
	e := newEnv(t)
	gitProject(t, e)
	log, gate := filepath.Join(e.dir, "overlap.log"), filepath.Join(e.dir, "gate")
	hooks := "[[on_overlap]]\ncommand = \"printf '%s|%s|%s\\\\n' {session_id} {overlap_with} {overlap_paths} >> " + log + "\"\n"
	if err := os.WriteFile(filepath.Join(e.dir, "cfg", "hooks.toml"), []byte(hooks), 0o600); err != nil {
		t.Fatal(err)
	}
	// Each run edits f.txt, then g.txt once the first overlap fired.
	script := func(who string) string {
		return "write f.txt " + who + "; write " + who + "-only.txt " + who + "; waitfile " + log + "; write g.txt " + who + "; waitfile " + gate + "; echo done"
	}
	a := strings.TrimSpace(e.csa(0, "run", "-d", "-w", "--tool", "codex", script("A")))
	b := strings.TrimSpace(e.csa(0, "run", "-d", "-w", "--tool", "codex", script("B")))
	t.Cleanup(func() { os.WriteFile(gate, nil, 0o644); e.cmd("wait", a, b).Run() })
	flagged := func(rows map[string]overlapRow, id, with string, paths ...string) bool {
		o := rows[id].Overlaps
		return len(o) == 1 && o[0].With == with && slices.Equal(o[0].Paths, paths)
	}
	waitFlagged := func(paths ...string) {
		t.Helper()
		for deadline := time.Now().Add(waitBound); ; time.Sleep(20 * time.Millisecond) {
			rows := e.overlapRows()
			if flagged(rows, a, b, paths...) && flagged(rows, b, a, paths...) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("never flagged with %q: %+v", paths, rows)
			}
		}
	}
	waitFlagged("f.txt", "g.txt")
	if table := e.csa(0, "ps"); !strings.Contains(table, "OVERLAPS") || !strings.Contains(table, b[:10]+" f.txt (+1)") {
		t.Errorf("ps:\n%s", table)
	}
	firings := func() []string {
		data, _ := os.ReadFile(log)
		return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	}
	for deadline := time.Now().Add(waitBound); len(firings()) < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("on_overlap fired %q", firings())
		}
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	e.csa(0, "wait", a, b)
	got := firings()
	pair := func(l string) bool { return strings.HasPrefix(l, a+"|"+b+"|") || strings.HasPrefix(l, b+"|"+a+"|") }
	if len(got) != 2 || !pair(got[0]) || !pair(got[1]) || !strings.HasSuffix(got[0], "|f.txt") || !strings.HasSuffix(got[1], "|g.txt") {
		t.Errorf("on_overlap fired %q, want once for %s and %s over f.txt, then once over g.txt", got, a, b)
	}
	for id, r := range e.overlapRows() {
		if len(r.Overlaps) > 0 {
			t.Errorf("%s still flagged after the runs ended: %+v", id, r)
		}
	}
}
