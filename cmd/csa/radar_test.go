package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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

// The radar's reports left behind: a supervisor SIGKILLed while its
// worktree run works cannot withdraw the run's report; csa gc --dry-run
// lists it and keeps it, csa gc removes it, and a live run's report stays.
func TestGCRemovesLeftRadarReports(t *testing.T) {
	e := newEnv(t)
	gitProject(t, e)
	gate := filepath.Join(e.dir, "gate")
	live := strings.TrimSpace(e.csa(0, "run", "-d", "-w", "--tool", "codex", "write live.txt x; waitfile "+gate+"; echo done"))
	t.Cleanup(func() { os.WriteFile(gate, nil, 0o644); e.cmd("wait", live).Run() })
	pidfile := filepath.Join(e.dir, "agent.pid")
	c := e.cmd("run", "-w", "--tool", "codex", "write f.txt x; pidfile "+pidfile+"; sleep 60s")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	agent, _ := strconv.Atoi(waitFile(t, pidfile))
	var killed string
	for _, r := range e.ps() {
		if r.ID != live {
			killed = r.ID
		}
	}
	report := func(id string) string {
		m, _ := filepath.Glob(filepath.Join(e.dir, "state", "projects", "*", "radar", id))
		if len(m) != 1 {
			return ""
		}
		return m[0]
	}
	for deadline := time.Now().Add(waitBound); report(live) == "" || report(killed) == ""; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no reports of %s and %s", live, killed)
		}
	}
	left := report(killed)
	c.Process.Kill()
	c.Wait()
	waitDead(t, agent)
	if _, err := os.Stat(left); err != nil {
		t.Fatalf("the killed supervisor's report went: %v", err)
	}

	type gcOut struct {
		Reports []struct{ Path, Reason string } `json:"radar_reports"`
	}
	var dry, done gcOut
	if err := json.Unmarshal([]byte(e.csa(0, "gc", "--dry-run", "--json")), &dry); err != nil {
		t.Fatal(err)
	}
	if len(dry.Reports) != 1 || dry.Reports[0].Path != left || dry.Reports[0].Reason != "its session ended (crashed)" {
		t.Fatalf("gc --dry-run: %+v, want %s", dry, left)
	}
	if _, err := os.Stat(left); err != nil {
		t.Fatalf("gc --dry-run removed the report: %v", err)
	}
	if text := e.csa(0, "gc", "--dry-run"); !strings.Contains(text, "would remove radar report "+left+" (its session ended (crashed))") {
		t.Errorf("gc --dry-run:\n%s", text)
	}
	if err := json.Unmarshal([]byte(e.csa(0, "gc", "--json")), &done); err != nil {
		t.Fatal(err)
	}
	if len(done.Reports) != 1 || done.Reports[0].Path != left {
		t.Errorf("gc: %+v", done)
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("the killed run's report is still there: %v", err)
	}
	if report(live) == "" {
		t.Error("gc removed the live run's report")
	}
	if again := e.csa(0, "gc", "--json"); !strings.Contains(again, `"radar_reports":[]`) && !strings.Contains(again, `"radar_reports": []`) {
		t.Errorf("a second gc: %s", again)
	}
}
