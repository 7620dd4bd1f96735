package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/csa-dev/csa/internal/cli/root"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/resource"
	"github.com/csa-dev/csa/internal/sandbox"
	"github.com/csa-dev/csa/internal/testkit/fakeagent"
	"github.com/csa-dev/csa/internal/testkit/modelserver"
	"github.com/csa-dev/csa/internal/testkit/scripttest"
)

// TestMain makes the test binary double as csa, the fake agent and
// csa-model-server, so scripts and integration tests run the real
// commands, as separate processes.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"csa":              func() { os.Exit(root.Entry()) },
		"fakeagent":        func() { os.Exit(fakeagent.Main()) },
		"csa-model-server": func() { os.Exit(modelserver.Main(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the command contract in testdata/script.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "script"),
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			isolate(env.WorkDir, env.Setenv)
			// A script that fails half way must not leave its agents,
			// pane wrappers or tmux servers running.
			state := filepath.Join(env.WorkDir, "state")
			env.Defer(func() { killTagged("CSA_STATE_DIR=" + state) })
			// Scripts that need a second state directory use this one.
			elsewhere := filepath.Join(env.WorkDir, "elsewhere")
			env.Defer(func() { killTagged("CSA_STATE_DIR=" + elsewhere) })
			return writeFakeConfig(filepath.Join(env.WorkDir, "cfg"))
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "landlock", "landlock-net":
				abi, _ := sandbox.Probe()
				need := 1
				if cond == "landlock-net" {
					need = sandbox.NetABI
				}
				if abi < need && os.Getenv("CI") != "" {
					return false, fmt.Errorf("CI's kernel offers Landlock ABI %d+: the sandbox tests must run", need)
				}
				return abi >= need, nil
			case "curl":
				_, err := exec.LookPath("curl")
				if err != nil && os.Getenv("CI") != "" {
					return false, fmt.Errorf("CI installs curl (.ci/run): the network sandbox tests must run")
				}
				return err == nil, nil
			}
			if cond != "cgroup1" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			ok := resource.Probe(resource.RealHost()).Status(resource.LayerCgroup1).Available
			if !ok && os.Getenv("CI") != "" {
				return false, fmt.Errorf("CI runs as root on a host with cgroup v1: the cgroup1 layer must be available")
			}
			return ok, nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"capture":      cmdCapture,
			"sleep":        cmdSleep,
			"age":          cmdAge,
			"waitfor":      cmdWaitFor,
			"bigfile":      cmdBigFile,
			"randfile":     cmdRandFile,
			"waitps":       cmdWaitPs,
			"jsonget":      cmdJSONGet,
			"exits":        scripttest.Exits,
			"waitnoagents": cmdWaitNoAgents,
			"waitfile":     cmdWaitFile,
			"poll":         cmdPoll,
			"serve":        cmdServe,
		},
	})
}

// isolate points every csa directory and HOME inside dir.
func isolate(dir string, setenv func(k, v string)) {
	setenv("HOME", filepath.Join(dir, "home"))
	setenv("CSA_STATE_DIR", filepath.Join(dir, "state"))
	setenv("CSA_CONFIG_HOME", filepath.Join(dir, "cfg"))
	// Sockets (tmux servers, the keeper daemon) are the test's own.
	setenv("XDG_RUNTIME_DIR", filepath.Join(dir, "run"))
	for _, k := range []string{"CSA_SESSION_ID", "CSA_DEPTH", "CSA_PROJECT_ROOT", "CSA_PARENT_SESSION", "CSA_TOOL", "CSA_PARENT_TOOL", "CSA_SESSION_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME"} {
		setenv(k, "")
	}
}

// writeFakeConfig points every tool at the fake agent.
func writeFakeConfig(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "config.toml"), []byte(fakeagent.Config("fakeagent")), 0o600)
}

// waitBound bounds every polling command: a failure, not a slow machine,
// should be what reaches it.
const waitBound = time.Minute

// capture VAR: set VAR to the trimmed stdout of the previous command.
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: capture VAR")
	}
	ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile("stdout")))
}

// sleep DUR
func cmdSleep(ts *testscript.TestScript, neg bool, args []string) {
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	time.Sleep(d)
}

// age PATH DUR: move a file's modification time into the past.
func cmdAge(ts *testscript.TestScript, neg bool, args []string) {
	d, err := time.ParseDuration(args[1])
	ts.Check(err)
	t := time.Now().Add(-d)
	ts.Check(os.Chtimes(ts.MkAbs(args[0]), t, t))
}

// waitfor ID STATE: poll `csa inspect` until the session is in STATE
// (bounded: waitBound), for steps that must happen while a run is live.
func cmdWaitFor(ts *testscript.TestScript, neg bool, args []string) {
	deadline := time.Now().Add(waitBound)
	for {
		cmd := exec.Command("csa", "inspect", "--json", args[0])
		cmd.Dir = ts.MkAbs(".")
		cmd.Env = environ(ts)
		out, _ := cmd.Output()
		if strings.Contains(string(out), `"state": "`+args[1]+`"`) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("session %s did not reach %s: %s", args[0], args[1], out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func environ(ts *testscript.TestScript) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "CSA_STATE_DIR", "CSA_CONFIG_HOME"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	return env
}

// waitfile PATH: wait (bounded: 20 s) until PATH exists, for steps that
// must happen once an agent has reached a point of its script.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile PATH")
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(ts.MkAbs(args[0])); err == nil {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s never appeared", args[0])
		}
	}
}

// bigfile PATH N: write a file of N bytes of prompt text.
func cmdBigFile(ts *testscript.TestScript, neg bool, args []string) {
	var n int
	_, err := fmt.Sscan(args[1], &n)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(strings.Repeat("x", n)), 0o644))
}

// randfile PATH N: write N random bytes (the same ones each time).
func cmdRandFile(ts *testscript.TestScript, neg bool, args []string) {
	var n int
	_, err := fmt.Sscan(args[1], &n)
	ts.Check(err)
	r := rand.New(rand.NewPCG(uint64(n), 23))
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(r.UintN(256))
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o644))
}

// waitps REGEXP: poll `csa ps` until its output matches (bounded: waitBound).
func cmdWaitPs(ts *testscript.TestScript, neg bool, args []string) {
	re, err := regexp.Compile("(?m)" + args[0])
	ts.Check(err)
	deadline := time.Now().Add(waitBound)
	for {
		cmd := exec.Command("csa", "ps")
		cmd.Dir = ts.MkAbs(".")
		cmd.Env = environ(ts)
		out, _ := cmd.Output()
		if re.Match(out) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("csa ps never matched %q:\n%s", args[0], out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// jsonget VAR KEY: set VAR to the first string or number value of "KEY" in
// the previous command's JSON stdout.
func cmdJSONGet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: jsonget VAR KEY")
	}
	re := regexp.MustCompile(`"` + regexp.QuoteMeta(args[1]) + `":\s*("((?:[^"\\]|\\.)*)"|-?[0-9.]+)`)
	m := re.FindStringSubmatch(ts.ReadFile("stdout"))
	if m == nil {
		ts.Fatalf("no %q in stdout", args[1])
	}
	v := m[1]
	if strings.HasPrefix(v, `"`) {
		v = m[2]
	}
	ts.Setenv(args[0], v)
}

// waitnoagents: wait (bounded: waitBound) until no process started for this
// script's state directory is left, and fail naming any that remain.
func cmdWaitNoAgents(ts *testscript.TestScript, neg bool, args []string) {
	tag := []string{"CSA_STATE_DIR=" + ts.Getenv("CSA_STATE_DIR")}
	deadline := time.Now().Add(waitBound)
	for {
		var left []string
		dirs, _ := filepath.Glob("/proc/[0-9]*")
		for _, d := range dirs {
			pid, _ := strconv.Atoi(filepath.Base(d))
			// One caught in an execve is counted: its tag cannot be read yet.
			if tagged, settled := proc.HasTag(pid, tag); !tagged && settled || pid == os.Getpid() {
				continue
			}
			cmd, _ := os.ReadFile(d + "/cmdline")
			left = append(left, filepath.Base(d)+" "+strings.ReplaceAll(string(cmd), "\x00", " "))
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("processes left behind:\n%s", strings.Join(left, "\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// poll REGEXP PROG ARGS...: run PROG until its stdout matches REGEXP
// (bounded: waitBound), for a condition no csa command waits for; the last
// run's stdout and stderr become the script's.
func cmdPoll(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: poll REGEXP PROG ARGS...")
	}
	re, err := regexp.Compile("(?m)" + args[0])
	ts.Check(err)
	deadline := time.Now().Add(waitBound)
	for {
		ts.Exec(args[1], args[2:]...) // a failing run is one more miss
		if re.MatchString(ts.ReadFile("stdout")) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s never printed a match for %q:\n%s%s", args[1], args[0], ts.ReadFile("stdout"), ts.ReadFile("stderr"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// killTagged SIGKILLs every process whose environment holds tag.
func killTagged(tag string) {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, _ := strconv.Atoi(filepath.Base(d))
		if tagged, _ := proc.HasTag(pid, []string{tag}); tagged && pid != os.Getpid() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// serve VAR: serve HTTP on 127.0.0.1 (from the test, outside any
// sandbox) until the script ends, answering "served by VAR"; VAR is set
// to its host:port.
func cmdServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: serve VAR")
	}
	name := args[0]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "served by "+name)
	}))
	ts.Defer(srv.Close)
	ts.Setenv(name, srv.Listener.Addr().String())
}
