package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// term is csa top running in a tmux pane of a server of the test's own,
// driven with send-keys and read with capture-pane.
type term struct {
	t    *testing.T
	sock string
}

func startTop(t *testing.T, w *world, args ...string) *term {
	tm := &term{t: t, sock: filepath.Join(w.dir, "top.sock")}
	env := append([]string{"env", "-i"}, w.env...)
	script := `cd "$1" && shift && "$@"; echo "csa top exited with status $?"; exec sleep 3600`
	cmd := append([]string{"-S", tm.sock, "-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "40", "-s", "top"}, env...)
	cmd = append(cmd, "TERM=xterm-256color", "sh", "-c", script, "sh", w.proj, filepath.Join(bin, "csa"), "top")
	cmd = append(cmd, args...)
	if out, err := exec.Command("tmux", cmd...).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-S", tm.sock, "kill-server").Run() })
	return tm
}

// keys types into the pane (tmux key names, as send-keys takes them).
func (tm *term) keys(keys ...string) {
	tm.t.Helper()
	args := append([]string{"-S", tm.sock, "send-keys", "-t", "top"}, keys...)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		tm.t.Fatalf("send-keys %q: %v\n%s", keys, err, out)
	}
}

// text types literal text.
func (tm *term) text(s string) { tm.keys("-l", s) }

func (tm *term) screen() string {
	out, _ := exec.Command("tmux", "-S", tm.sock, "capture-pane", "-p", "-t", "top").Output()
	return string(out)
}

// waitFor polls the screen until cond holds and returns that screen.
func (tm *term) waitFor(what string, cond func(screen string) bool) string {
	tm.t.Helper()
	var s string
	until(tm.t, what, func() (bool, string) {
		s = tm.screen()
		return cond(s), s
	})
	return s
}

// line is the screen's line showing session id ("" when none does).
func line(screen, id string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, id) {
			return l
		}
	}
	return ""
}

// column is where sub starts in l, in characters.
func column(l, sub string) int {
	i := strings.Index(l, sub)
	if i < 0 {
		return -1
	}
	return utf8.RuneCountInString(l[:i])
}

// shows: the session's line has the class's symbol and words before its
// id (and after it, want's extra text when given).
func shows(screen, id, class string, extra ...string) bool {
	l := line(screen, id)
	i := strings.Index(l, class)
	if i < 0 || i > strings.Index(l, id) {
		return false
	}
	for _, e := range extra {
		if !strings.Contains(l[strings.Index(l, id):], e) {
			return false
		}
	}
	return true
}

// TestTopShowsTheFleetAndActs: csa top over a fleet of fake sessions in
// every state shows each with its symbol and words, the child under its
// parent; a state change appears; the filter, send, the log, attach and
// back, kill and help work from the keys.
func TestTopShowsTheFleetAndActs(t *testing.T) {
	w := newWorld(t)
	f := newFixture(t, w)
	// r reviews the selected session's diff: the project is a repository
	// with a change, and the fake reviewers pass it.
	git := func(args ...string) {
		c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		c.Dir = w.proj
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	must(t, os.WriteFile(filepath.Join(w.proj, "a.txt"), []byte("one\n"), 0o600))
	git("init", "-q")
	git("add", "a.txt")
	git("commit", "-qm", "init")
	must(t, os.WriteFile(filepath.Join(w.proj, "a.txt"), []byte("one\ntwo\n"), 0o600))
	answers := filepath.Join(w.dir, "answers.txt")
	must(t, os.WriteFile(answers, []byte("codex | CSA REVIEW REQUEST => echo '{\"verdict\": \"pass\", \"findings\": []}'\n"+
		"gemini-cli | CSA REVIEW REQUEST => echo '{\"verdict\":\"pass\"}'\n"), 0o600))
	w.env = append(w.env, "CSA_FAKE_ANSWERS="+answers, "CSA_TOOL=claude-code")
	tm := startTop(t, w)

	want := map[string]string{
		f.done: "= done", f.killed: "= done", f.failed: "x failed", f.working: "> working", f.retrying: "> working", f.parent: "> working",
		f.child: "> working", f.needsInput: "! needs input", f.idle: "- idle", f.stuck: "# stuck", f.unknown: "? unknown",
	}
	s := tm.waitFor("every session in its class", func(s string) bool {
		for id, class := range want {
			if !shows(s, id, class) {
				return false
			}
		}
		return shows(s, f.retrying, "> working", " r2") // the agent's own retries
	})
	if !shows(s, f.done, "= done", "the finished answer") || !shows(s, f.needsInput, "! needs input", "first answer") ||
		!shows(s, f.working, "> working", "still working") {
		t.Fatalf("last lines missing:\n%s", s)
	}
	if p, c := column(line(s, f.parent), f.parent), column(line(s, f.child), f.child); c <= p {
		t.Fatalf("the child is not indented under its parent (%d <= %d):\n%s", c, p, s)
	}
	if !strings.Contains(s, "! 1 needs input") || !strings.Contains(s, "# 1 stuck") || !strings.Contains(s, "> 4 working") || !strings.Contains(s, "? 1 unknown") {
		t.Fatalf("header counts:\n%s", s)
	}

	// Collapse and expand the parent (the filter leaves it and its
	// subtree).
	tm.keys("/")
	tm.text(f.parent)
	tm.keys("Enter")
	tm.waitFor("the parent and its child", func(s string) bool { return strings.Contains(s, f.child) && !strings.Contains(s, f.done) })
	tm.keys("g", "Enter")
	tm.waitFor("the parent collapsed", func(s string) bool {
		return !strings.Contains(s, f.child) && strings.Contains(line(s, f.parent), f.parent+" +1")
	})
	tm.keys("Enter")
	tm.waitFor("the parent expanded", func(s string) bool { return shows(s, f.child, "> working", "the child") })
	tm.keys("Escape")
	tm.waitFor("the filter cleared", func(s string) bool { return strings.Contains(s, f.done) })

	// A session that changes state shows it at the next refresh.
	start := time.Now()
	w.csa(t, "send", f.idle, "--text", "echo now answered", "--enter")
	tm.waitFor("the idle session needing input", func(s string) bool { return shows(s, f.idle, "! needs input", "now answered") })
	t.Logf("csa top showed the state change %s after csa send", time.Since(start).Round(time.Millisecond))

	// The filter keeps matching rows.
	tm.keys("/")
	tm.text("stuck")
	tm.keys("Enter")
	tm.waitFor("the filter", func(s string) bool {
		return shows(s, f.stuck, "# stuck") && !strings.Contains(s, f.done) && strings.Contains(s, "filter: stuck")
	})
	tm.keys("Escape")
	tm.waitFor("the filter cleared", func(s string) bool { return strings.Contains(s, f.done) && strings.Contains(s, f.stuck) })

	// Send a line, read the log.
	tm.keys("/")
	tm.text(f.needsInput)
	tm.keys("Enter")
	tm.waitFor("only the session needing input", func(s string) bool { return strings.Contains(s, f.needsInput) && !strings.Contains(s, f.done) })
	tm.keys("s")
	tm.waitFor("the send prompt", func(s string) bool { return strings.Contains(s, "send to "+f.needsInput) })
	tm.text("echo typed in top")
	tm.keys("Enter")
	tm.waitFor("the answer to the line sent", func(s string) bool {
		return shows(s, f.needsInput, "! needs input", "typed in top") && strings.Contains(s, "sent to "+f.needsInput)
	})
	tm.keys("l")
	tm.waitFor("the log", func(s string) bool {
		return strings.Contains(s, "log of "+f.needsInput) && strings.Contains(s, "first answer") && strings.Contains(s, "typed in top")
	})
	tm.keys("Escape")

	// Attach: the agent's own pane; detaching comes back to csa top.
	tm.waitFor("the tree again", func(s string) bool { return strings.Contains(s, "csa top ") })
	tm.keys("a")
	tm.waitFor("the agent's pane", func(s string) bool {
		return !strings.Contains(s, "csa top ") && strings.Contains(s, "typed in top") && strings.Contains(s, "[csa-")
	})
	tm.keys("C-b", "d")
	tm.waitFor("csa top after the detach", func(s string) bool {
		return strings.Contains(s, "csa top ") && strings.Contains(s, "back from "+f.needsInput)
	})

	// Kill, confirmed.
	tm.keys("/")
	tm.keys("C-u")
	tm.text(f.working)
	tm.keys("Enter")
	tm.waitFor("only the working session", func(s string) bool { return shows(s, f.working, "> working") && !strings.Contains(s, f.done) })
	tm.keys("K")
	tm.waitFor("the confirmation", func(s string) bool { return strings.Contains(s, "kill "+f.working+"? (y/n)") })
	tm.keys("y")
	tm.waitFor("the session killed", func(s string) bool { return shows(s, f.working, "= done") })
	if st := w.state(t, f.working); st != "killed" {
		t.Fatalf("csa says %s is %s, want killed", f.working, st)
	}

	// Review the session's diff; Enter comes back.
	tm.keys("r")
	tm.waitFor("the review's verdict", func(s string) bool {
		return strings.Contains(s, ": pass (majority: 2 pass") && strings.Contains(s, "[csa top: press Enter to return]")
	})
	tm.keys("Enter")
	tm.waitFor("csa top after the review", func(s string) bool { return strings.Contains(s, "review done") })

	tm.keys("?")
	tm.waitFor("the help", func(s string) bool {
		return strings.Contains(s, "csa top: keys") && strings.Contains(s, "! needs input")
	})
	tm.keys("Escape")
	// (a key right after Escape would read as Alt and that key)
	tm.waitFor("the tree again", func(s string) bool { return strings.Contains(s, "csa top ") })
	tm.keys("q")
	tm.waitFor("csa top to quit", func(s string) bool { return regexp.MustCompile(`csa top exited with status 0`).MatchString(s) })
}
