package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/testkit/fakeagent"
)

// bin holds csa, csa-ui and the fake agent, built for these tests: csa top
// and csa serve --ui hand over to the csa-ui beside csa, as installed.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "csa-ui-test")
	if err != nil {
		panic(err)
	}
	_, file, _, _ := runtime.Caller(0)
	build := exec.Command("go", "build", "-o", dir+string(os.PathSeparator), "./cmd/csa", "./cmd/csa-ui", "./cmd/fakeagent")
	build.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "csa-ui tests: go build:", err)
		os.Exit(1)
	}
	bin = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// wait bounds every wait for a condition: a failure, not a slow machine,
// should be what reaches it.
const wait = 90 * time.Second

// world is an isolated csa (state, config pointing every tool at the fake
// agent, a project) whose processes all go when the test ends.
type world struct {
	dir, proj string
	env       []string
}

// projectConfig: interactive sessions settle fast, and one that shows no
// sign of life for 3 s is stuck.
const projectConfig = `[interactive]
grace = "1s"
quiet = "1s"
stuck_after = "3s"
`

func newWorld(t *testing.T) *world {
	dir := t.TempDir()
	w := &world{dir: dir, proj: filepath.Join(dir, "proj")}
	cfg := filepath.Join(dir, "cfg")
	for _, d := range []string{filepath.Join(w.proj, ".csa"), cfg} {
		os.MkdirAll(d, 0o700)
	}
	must(t, os.WriteFile(filepath.Join(cfg, "config.toml"), []byte(fakeagent.Config(filepath.Join(bin, "fakeagent"))), 0o600))
	must(t, os.WriteFile(filepath.Join(w.proj, ".csa", "config.toml"), []byte(projectConfig), 0o600))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CSA_") && !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "TMUX") &&
			!strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "NO_COLOR=") {
			w.env = append(w.env, kv)
		}
	}
	w.env = append(w.env, "HOME="+filepath.Join(dir, "home"), "CSA_STATE_DIR="+filepath.Join(dir, "state"),
		"CSA_CONFIG_HOME="+cfg, "XDG_RUNTIME_DIR="+filepath.Join(dir, "run"), "PATH="+bin+":"+os.Getenv("PATH"))
	tag := "CSA_STATE_DIR=" + filepath.Join(dir, "state")
	t.Cleanup(func() { killTagged(tag) })
	return w
}

// csa runs csa in the project and returns its stdout; a failure fails the
// test unless exit codes are allowed.
func (w *world) csa(t *testing.T, args ...string) string {
	t.Helper()
	out, err := w.cmd(args...).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("csa %s: %v\n%s%s", strings.Join(args, " "), err, out, msg)
	}
	return strings.TrimSpace(string(out))
}

func (w *world) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(bin, "csa"), args...)
	cmd.Dir, cmd.Env = w.proj, w.env
	return cmd
}

// state is a session's classified (interactive) or recorded state.
func (w *world) state(t *testing.T, id string) string {
	t.Helper()
	out, _ := w.cmd("wait", "--json", "--timeout", "1ms", id).Output()
	var r struct {
		Sessions []struct {
			State string `json:"state"`
		} `json:"sessions"`
	}
	if json.Unmarshal(out, &r) != nil || len(r.Sessions) != 1 {
		return ""
	}
	return r.Sessions[0].State
}

// until polls cond until it holds (bounded by wait).
func until(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		ok, got := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never happened; last seen:\n%s", what, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// fixture is a project with a session in every class the views show.
type fixture struct {
	done, failed, killed, working, retrying, parent, child, needsInput, idle, stuck, unknown string
}

func newFixture(t *testing.T, w *world) *fixture {
	f := &fixture{}
	f.done = w.csa(t, "run", "-d", "--tool", "codex", "echo the finished answer")
	f.failed = w.csa(t, "run", "-d", "--tool", "claude-code", "error boom")
	f.killed = w.csa(t, "run", "-d", "--tool", "codex", "hang")
	f.working = w.csa(t, "run", "-d", "--tool", "codex", "echo still working; hang")
	f.retrying = w.csa(t, "run", "-d", "--tool", "claude-code", "retrying 2")
	f.parent = w.csa(t, "run", "-d", "--tool", "gemini-cli", `echo the parent; csa run --tool codex "echo the child; hang"`)
	f.needsInput = w.csa(t, "run", "-i", "--tool", "claude-code", "echo first answer")
	f.idle = w.csa(t, "run", "-i", "--tool", "claude-code")
	f.stuck = w.csa(t, "run", "-i", "--tool", "claude-code", "hang")
	f.unknown = w.csa(t, "run", "-i", "--tool", "claude-code")
	w.csa(t, "wait", "--timeout", "1m", f.done)
	w.cmd("wait", "--timeout", "1m", f.failed).Run()
	w.csa(t, "kill", f.killed)
	w.csa(t, "wait", "--until", "waiting_input", "--timeout", "1m", f.needsInput, f.idle, f.unknown)
	// The heartbeat of "unknown" cannot be read (a directory took its
	// place): csa can no longer tell what the session does (degraded).
	var in struct {
		Dir string `json:"dir"`
	}
	must(t, json.Unmarshal([]byte(w.csa(t, "inspect", "--json", f.unknown)), &in))
	hb := filepath.Join(in.Dir, "heartbeat.json")
	until(t, "the parent's child session", func() (bool, string) {
		out, _ := w.cmd("ps", "--json").Output()
		var kids []string
		var ps []struct {
			ID     string `json:"id"`
			Parent string `json:"parent_id"`
		}
		json.Unmarshal(out, &ps)
		for _, r := range ps {
			if r.Parent == f.parent {
				kids = append(kids, r.ID)
			}
		}
		if len(kids) == 1 {
			f.child = kids[0]
			return true, ""
		}
		return false, string(out)
	})
	until(t, "the stuck and unknown sessions", func() (bool, string) {
		if fi, err := os.Stat(hb); err != nil || !fi.IsDir() {
			os.Remove(hb)
			os.Mkdir(hb, 0o700)
		}
		s, u := w.state(t, f.stuck), w.state(t, f.unknown)
		return s == "stuck" && u == "degraded", s + " " + u
	})
	return f
}

// killTagged kills every process carrying tag in its environment: a test
// that fails half way leaves no agent, wrapper or tmux server running.
func killTagged(tag string) {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, _ := strconv.Atoi(filepath.Base(d))
		if tagged, _ := proc.HasTag(pid, []string{tag}); tagged && pid != os.Getpid() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
