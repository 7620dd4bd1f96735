package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// sgr matches a Select Graphic Rendition sequence.
var sgr = regexp.MustCompile(`\x1b\[([0-9;]*)m`)

// colour returns the first SGR sequence in s that sets a foreground or
// background colour (16, 256 or true colour; 39 and 49, back to the
// default, set none), or "".
func colour(s string) string {
	for _, m := range sgr.FindAllStringSubmatch(s, -1) {
		for _, p := range strings.Split(m[1], ";") {
			n, err := strconv.Atoi(p)
			if err == nil && (n >= 30 && n <= 38 || n >= 40 && n <= 48 || n >= 90 && n <= 97 || n >= 100 && n <= 107) {
				return m[0]
			}
		}
	}
	return ""
}

// TestTopAllWithoutColour: csa top --all shows every project's sessions
// with a PROJECT column, a session that failed over with its failovers
// (f1), and under NO_COLOR its screen carries no colour at all: the
// classes read from their symbols and words alone.
func TestTopAllWithoutColour(t *testing.T) {
	w := newWorld(t)
	f, err := os.OpenFile(filepath.Join(w.proj, ".csa", "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteString(tiersConfig)
	must(t, err)
	must(t, f.Close())
	here := w.csa(t, "run", "-d", "--tool", "codex", "echo here")
	// The tier's first model answers 429: the run fails over once.
	w.env = append(w.env, "CSA_FAKE_RETRY_AFTER=1s")
	w.csa(t, "run", "--tier", "main", "ratelimited busy-model; echo answered") // in the foreground: -d does not fail over
	other := filepath.Join(w.dir, "other")
	must(t, os.MkdirAll(filepath.Join(other, ".csa"), 0o700))
	cmd := w.cmd("run", "-d", "--tool", "codex", "error elsewhere")
	cmd.Dir = other
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("csa run in the other project: %v", err)
	}
	there := strings.TrimSpace(string(out))
	w.csa(t, "wait", "--timeout", "1m", here)

	w.env = append(w.env, "NO_COLOR=1")
	tm := startTop(t, w, "--all")
	s := tm.waitFor("both projects' sessions, and the failover", func(s string) bool {
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "claude-code") && strings.Contains(l, "= done") && strings.Contains(l, " f1") {
				return shows(s, here, "= done") && shows(s, there, "x failed")
			}
		}
		return false
	})
	if !strings.Contains(s, "PROJECT") || !strings.Contains(line(s, there), "other") || !strings.Contains(line(s, here), "proj") {
		t.Fatalf("--all without the projects:\n%s", s)
	}
	esc, err := exec.Command("tmux", "-S", tm.sock, "capture-pane", "-e", "-p", "-t", "top").Output()
	if err != nil {
		t.Fatal(err)
	}
	if m := colour(string(esc)); m != "" {
		t.Fatalf("colour under NO_COLOR (%q):\n%q", m, esc)
	}
	tm.keys("q")
}

// tiersConfig: a tier whose first model is rate limited (the fake agent's
// ratelimited), failing over at once to the second.
const tiersConfig = `
[tiers.main]
models = ["codex/openai/busy-model", "claude-code/anthropic/good-model"]
[failover]
retries = 0
backoff = "10ms"
`
