// Package e2e runs the real agent programs under csa against the project's
// scripted model server: the proof that csa drives each tool for real.
// The programs come from `csa tools install` (make agents). In CI a
// missing program fails the tests; locally they are skipped with a note.
package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/testkit/devenv"
	"github.com/csa-dev/csa/internal/testkit/modelserver"
	"github.com/csa-dev/csa/internal/toolcache"
)

// csaBin is the csa built for these tests; agents find it on PATH. The
// csa-agent, csa-mcp and csa-cluster built with it are beside it, where
// csa looks for them.
var csaBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "csa-e2e-bin")
	if err != nil {
		panic(err)
	}
	_, file, _, _ := runtime.Caller(0)
	build := exec.Command("go", "build", "-o", dir+string(os.PathSeparator), "./cmd/csa", "./cmd/csa-agent", "./cmd/csa-mcp", "./cmd/csa-cluster")
	build.Dir = filepath.Join(filepath.Dir(file), "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as make build
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building csa:", err)
		os.Exit(1)
	}
	csaBin = filepath.Join(dir, "csa")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// tool is one real agent under test.
type tool struct {
	name         string // csa tool name
	program      string // its program, as the registry names it
	builtWithCSA bool   // csa-agent: built here with csa, not installed by npm
}

// tools are every tool of the registry; acpTools those with an ACP agent.
var tools, acpTools = func() (all, acp []tool) {
	for _, s := range agents.Registry {
		all = append(all, tool{string(s.Tool), s.Program.Name, s.Program.BuiltWithCSA()})
		if s.ACP != nil {
			acp = append(acp, tool{string(s.Tool), s.ACP.Name, s.ACP.BuiltWithCSA()})
		}
	}
	return all, acp
}()

// requireAll finds every program or fails (CI) / skips (locally): the
// pinned ones in csa's cache, csa-agent beside the csa built here.
func requireAll(t *testing.T) map[string]string {
	t.Helper()
	paths := map[string]string{}
	for _, tl := range tools {
		p, err := programBin(tl)
		if err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed (run `make agents`): %v", tl.name, err)
			}
			t.Skipf("%s is not installed; run `make agents`: %v", tl.name, err)
		}
		paths[tl.name] = p
	}
	return paths
}

// programBin is where a tool's program is for these tests.
func programBin(tl tool) (string, error) {
	if tl.builtWithCSA {
		return filepath.Join(filepath.Dir(csaBin), tl.program), nil
	}
	return toolcache.Bin(tl.program)
}

// world is one test's model server, HOME, csa state and project.
type world struct {
	t      *testing.T
	server *modelserver.Server
	proj   string
	env    []string
}

func newWorld(t *testing.T, script string) *world {
	return newWorldWith(t, script, devenv.Options{})
}

// newWorldWith prepares the agents' HOME with opts (its Trusted is set).
func newWorldWith(t *testing.T, script string, opts devenv.Options) *world {
	t.Helper()
	paths := requireAll(t)
	sc, err := modelserver.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	srv := modelserver.New(sc, modelserver.Options{})
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	os.MkdirAll(filepath.Join(proj, ".csa"), 0o755)
	opts.Trusted = []string{proj}
	env, err := devenv.Prepare(filepath.Join(dir, "home"), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	programs := map[agents.Tool]string{}
	for name, p := range paths {
		programs[agents.Tool(name)] = p
	}
	cfgDir := filepath.Join(dir, "csa-config")
	os.MkdirAll(cfgDir, 0o700)
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(devenv.CSAConfig(programs)), 0o600); err != nil {
		t.Fatal(err)
	}
	env = append(env,
		"PATH="+filepath.Dir(csaBin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"CSA_STATE_DIR="+filepath.Join(dir, "state"),
		"CSA_CONFIG_HOME="+cfgDir,
	)
	base := devenv.Merge(os.Environ(), env)
	clean := base[:0]
	for _, kv := range base {
		if !strings.HasPrefix(kv, "CSA_SESSION_ID=") && !strings.HasPrefix(kv, "CSA_TOOL=") && !strings.HasPrefix(kv, "CSA_DEPTH=") {
			clean = append(clean, kv)
		}
	}
	return &world{t: t, server: srv, proj: proj, env: clean}
}

// result is `csa run --json`.
type result struct {
	SessionID         string `json:"session_id"`
	Tool              string `json:"tool"`
	Status            string `json:"status"`
	ExitCode          *int   `json:"exit_code"`
	Result            string `json:"result"`
	ProviderSessionID string `json:"provider_session_id"`
	Usage             *struct {
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
	} `json:"usage"`
	Failure *struct {
		Class   string `json:"class"`
		Message string `json:"message"`
	} `json:"failure"`
}

// run runs `csa ARGS` in the project and decodes its JSON answer.
func (w *world) run(wantExit int, args ...string) result {
	w.t.Helper()
	out, code, stderr := w.csa(args...)
	if code != wantExit {
		w.t.Fatalf("csa %q: exit %d, want %d\nstdout: %s\nstderr: %s\nmodel server saw: %s",
			args, code, wantExit, out, stderr, w.requests())
	}
	var r result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		w.t.Fatalf("csa %q: %v\n%s", args, err, out)
	}
	return r
}

func (w *world) csa(args ...string) (string, int, string) {
	out, stderr, code, err := w.csaIn(args...)
	if err != nil {
		w.t.Fatal(err)
	}
	return out, code, stderr
}

// csaIn runs `csa ARGS` in the project; unlike csa it may run in any
// goroutine (it reports instead of ending the test).
func (w *world) csaIn(args ...string) (stdout, stderr string, code int, err error) {
	var out, errb bytes.Buffer
	c := exec.Command(csaBin, args...)
	c.Dir, c.Env, c.Stdout, c.Stderr = w.proj, w.env, &out, &errb
	err = c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code, err = ee.ExitCode(), nil
	}
	return out.String(), errb.String(), code, err
}

// settled is what the model server answered, once every request it got
// has been recorded (an agent may exit on an answer's last event before
// the server's handler has returned and recorded it).
func (w *world) settled() []modelserver.RequestRecord {
	if !w.server.Settle(time.Minute) {
		w.t.Fatal("the model server is still answering after a minute")
	}
	return w.server.Requests()
}

func (w *world) requests() string {
	var b strings.Builder
	for _, r := range w.server.Requests() {
		fmt.Fprintf(&b, "\n  %+v", r)
	}
	return b.String()
}

func decode(t *testing.T, out string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
}
