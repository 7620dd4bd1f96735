package bench

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/testkit/fakeagent"
	"github.com/csa-dev/csa/internal/testkit/modelserver"
)

// Set by TestMain when benchmarks run.
var (
	benchDir  string // scratch space; $CSA_BENCH_DIR if set (kept), else a temp dir
	csaBin    string // built csa
	agentBin  string // built fakeagent
	mcpBin    string // built csa-mcp (the MCP hub and csa's MCP server)
	moduleDir string
)

// TestMain builds the binaries, and only when -bench is given: the normal
// `go test ./...` run must not pay for it.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		os.Exit(m.Run())
	}
	os.Exit(benchMain(m))
}

func benchMain(m *testing.M) int {
	var err error
	if moduleDir, err = findModule(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	benchDir = os.Getenv("CSA_BENCH_DIR")
	if benchDir == "" {
		parent := scratchParent()
		if err := os.MkdirAll(parent, 0o700); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		if benchDir, err = os.MkdirTemp(parent, "csa-bench-"); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		defer os.RemoveAll(benchDir)
	}
	if benchDir, err = filepath.EvalSymlinks(benchDir); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	// $CSA_BENCH_BIN names binaries built beforehand (bench/run.sh builds
	// once, so that all its `go test` runs measure the same tree).
	binDir := os.Getenv("CSA_BENCH_BIN")
	if binDir == "" {
		binDir = filepath.Join(benchDir, "bin")
		build := exec.Command("go", "build", "-o", binDir+string(os.PathSeparator), "./cmd/csa", "./cmd/csa-agent", "./cmd/csa-mcp", "./cmd/csa-cluster", "./cmd/csa-ui", "./cmd/fakeagent")
		build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as make build
		build.Dir = moduleDir
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "bench: go build: %v\n%s", err, out)
			return 1
		}
	}
	csaBin, agentBin, mcpBin = filepath.Join(binDir, "csa"), filepath.Join(binDir, "fakeagent"), filepath.Join(binDir, "csa-mcp")
	for _, p := range []string{csaBin, agentBin, mcpBin} {
		if _, err := os.Stat(p); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
	}
	code := m.Run()
	printSummary()
	return code
}

// scratchParent is where the scratch directory goes: $CSA_BENCH_TMP, else
// the directory that holds csa's own default state directory
// ($XDG_STATE_HOME or ~/.local/state), so sessions land on the file system
// a user's sessions would. Not /tmp: on a build machine /tmp sees heavy
// file churn from go build and tests, and on an ext4 without a journal
// that makes every file creation there slow (see docs/performance.md).
func scratchParent() string {
	if d := os.Getenv("CSA_BENCH_TMP"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return d
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "state")
	}
	return os.TempDir()
}

func findModule() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		p := filepath.Dir(d)
		if p == d {
			return "", errors.New("go.mod not found above the working directory")
		}
		d = p
	}
}

// world is one isolated csa installation: a config that points codex at
// the fake agent, a state directory and a project directory.
type world struct {
	stateDir, configDir, projDir string
	env                          []string
	stderr                       *os.File // reused: creating a file per command would add inode churn
}

// newWorld creates a world under benchDir/name; extra is appended to the
// global config file.
func newWorld(tb testing.TB, name, extra string) *world {
	return newWorldIn(tb, filepath.Join(benchDir, name), extra)
}

// newWorldIn creates a world in base, which it removes first.
func newWorldIn(tb testing.TB, base, extra string) *world {
	tb.Helper()
	os.RemoveAll(base)
	w := &world{
		stateDir:  filepath.Join(base, "state"),
		configDir: filepath.Join(base, "config"),
		projDir:   filepath.Join(base, "proj"),
	}
	for _, d := range []string{w.stateDir, w.configDir, filepath.Join(w.projDir, ".git")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			tb.Fatal(err)
		}
	}
	cfg := extra
	if !strings.Contains(extra, "[tools.codex]") {
		cfg = fmt.Sprintf("[tools.codex]\npath = %q\n%s", agentBin, extra)
	}
	cfg = fakeagent.Resources() + cfg
	if err := os.WriteFile(filepath.Join(w.configDir, "config.toml"), []byte(cfg), 0o600); err != nil {
		tb.Fatal(err)
	}
	// The world's own socket directory: its keeper daemon is its own.
	w.env = append(benchEnv(w.stateDir, w.configDir), "XDG_RUNTIME_DIR="+filepath.Join(base, "run"))
	f, err := os.Create(filepath.Join(base, "stderr"))
	if err != nil {
		tb.Fatal(err)
	}
	w.stderr = f
	tb.Cleanup(func() { f.Close() })
	return w
}

// benchEnv is the test's environment without anything that would make csa
// think it runs inside a session, plus the world's directories.
func benchEnv(stateDir, configDir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "CSA_") || strings.HasPrefix(kv, "XDG_STATE_HOME=") ||
			strings.HasPrefix(kv, "CLAUDECODE=") || strings.HasPrefix(kv, "CLAUDE_CODE_ENTRYPOINT=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "CSA_STATE_DIR="+stateDir, "CSA_CONFIG_HOME="+configDir)
}

// csa runs csa in the world and returns its trimmed standard output; a
// failure ends the benchmark.
func (w *world) csa(tb testing.TB, args ...string) string {
	tb.Helper()
	c := exec.Command(csaBin, args...)
	c.Dir, c.Env = w.projDir, w.env
	out, err := c.Output()
	if err != nil {
		tb.Fatalf("csa %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// command builds a process of the world, with stdout to /dev/null and
// stderr to a file (both handed to the child directly, no copying).
type command struct {
	cmd    *exec.Cmd
	errOut *os.File
}

func (w *world) command(tb testing.TB, stdout *os.File, path string, args ...string) *command {
	tb.Helper()
	c := exec.Command(path, args...)
	c.Dir, c.Env, c.Stdout = w.projDir, w.env, stdout
	if err := w.stderr.Truncate(0); err != nil {
		tb.Fatal(err)
	}
	w.stderr.Seek(0, 0)
	c.Stderr = w.stderr
	return &command{cmd: c, errOut: w.stderr}
}

// timed runs c to its end and returns its wall time, from fork to reap.
func (c *command) timed(tb testing.TB) time.Duration {
	tb.Helper()
	t0 := time.Now()
	err := c.cmd.Run()
	d := time.Since(t0)
	c.check(tb, err)
	return d
}

// cpu is the user and system time of the finished process and of the
// children it waited for (wait4 accounts reaped descendants to their
// parent): unlike wall time, it hardly moves when other work competes for
// the CPUs.
func (c *command) cpu() time.Duration {
	ps := c.cmd.ProcessState
	if ps == nil {
		return 0
	}
	return ps.UserTime() + ps.SystemTime()
}

func (c *command) check(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		c.errOut.Seek(0, 0)
		var b bytes.Buffer
		b.ReadFrom(c.errOut)
		tb.Fatalf("%s: %v\n%s", strings.Join(c.cmd.Args, " "), err, b.String())
	}
}

func devNull(tb testing.TB) *os.File {
	tb.Helper()
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	return f
}

// scriptedServer serves script on 127.0.0.1 for the benchmark's length.
func scriptedServer(b *testing.B, script string) (*modelserver.Server, string) {
	b.Helper()
	sc, err := modelserver.Parse([]byte(script))
	if err != nil {
		b.Fatal(err)
	}
	srv := modelserver.New(sc, modelserver.Options{})
	url, err := srv.Start()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	return srv, url
}
