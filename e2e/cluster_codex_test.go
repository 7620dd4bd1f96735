package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/cluster/clustertest"
	"github.com/csa-dev/csa/internal/testkit/devenv"
	"github.com/csa-dev/csa/internal/testkit/modelserver"
)

// clusterScript: each run's prompt picks its rule. The first run makes
// Codex rewrite alpha.txt with its write (a shell printf); the second
// makes Codex copy draft.txt, whose content exists only as the caller's
// uncommitted change, over beta.txt with a shell command.
const clusterScript = `
[[rule]]
name = "alpha"
contains = "e2e cluster rewrite alpha"
  [[rule.step]]
  write_file = { path = "alpha.txt", content = "alpha, rewritten by codex on a worker\n" }
  [[rule.step]]
  text = "Rewrote alpha.txt on the worker."

[[rule]]
name = "beta"
contains = "e2e cluster copy the draft"
  [[rule.step]]
  shell = "cat draft.txt > beta.txt"
  [[rule.step]]
  text = "Copied the draft into beta.txt."
`

// gatedModel is the scripted model server behind a gate: requests that
// carry hold are answered only once release is closed (or the client
// gives up), so a run stays in its first turn, in flight, until the test
// lets it go. arrived is closed at the first such request.
type gatedModel struct {
	srv      *modelserver.Server
	hold     []byte
	release  chan struct{}
	arrived  chan struct{}
	once     sync.Once
	unlocked sync.Once
}

func (g *gatedModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if bytes.Contains(body, g.hold) {
		g.once.Do(func() { close(g.arrived) })
		select {
		case <-g.release:
		case <-r.Context().Done():
			return
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	g.srv.ServeHTTP(w, r)
}

func (g *gatedModel) open() { g.unlocked.Do(func() { close(g.release) }) }

// node is one csa installation of the cluster test: its own HOME (Codex
// configured for the model server), state directory and configuration.
type node struct {
	t    *testing.T
	name string
	dir  string
	env  []string
}

func newNode(t *testing.T, name, natsURL, modelURL, codex string) *node {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	env, err := devenv.Prepare(filepath.Join(dir, "home"), modelURL, devenv.Options{Programs: []string{"codex"}})
	if err != nil {
		t.Fatal(err)
	}
	cfgDir := filepath.Join(dir, "csa-config")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("[cluster]\nurl = %q\n", natsURL) + devenv.CSAConfig(map[agents.Tool]string{agents.Codex: codex})
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env = append(env,
		"PATH="+filepath.Dir(csaBin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"CSA_STATE_DIR="+filepath.Join(dir, "state"),
		"CSA_CONFIG_HOME="+cfgDir,
		"XDG_RUNTIME_DIR="+filepath.Join(dir, "run"),
		// git in the caller's repository: no user configuration, a fixed
		// identity.
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
	)
	var clean []string
	for _, kv := range devenv.Merge(os.Environ(), env) {
		if !strings.HasPrefix(kv, "CSA_SESSION_ID=") && !strings.HasPrefix(kv, "CSA_TOOL=") && !strings.HasPrefix(kv, "CSA_DEPTH=") {
			clean = append(clean, kv)
		}
	}
	return &node{t: t, name: name, dir: dir, env: clean}
}

// run runs a program with this node's environment in dir: its stdout,
// exit status and stderr.
func (n *node) run(dir, prog string, args ...string) (string, int, string) {
	n.t.Helper()
	var out, errb bytes.Buffer
	c := exec.Command(prog, args...)
	c.Dir, c.Env, c.Stdout, c.Stderr = dir, n.env, &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		n.t.Fatal(err)
	}
	return out.String(), code, errb.String()
}

// must runs csa ARGS in dir and fails the test unless it exits 0.
func (n *node) must(dir string, args ...string) string {
	n.t.Helper()
	out, code, stderr := n.run(dir, csaBin, args...)
	if code != 0 {
		n.t.Fatalf("%s: csa %s: exit %d\nstdout: %s\nstderr: %s", n.name, strings.Join(args, " "), code, out, stderr)
	}
	return out
}

func (n *node) git(dir string, args ...string) string {
	n.t.Helper()
	out, code, stderr := n.run(dir, "git", args...)
	if code != 0 {
		n.t.Fatalf("git %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return out
}

// startWorker starts `csa worker` on the node; the test's end stops it.
func (n *node) startWorker(args ...string) {
	n.t.Helper()
	var log lockedBuffer
	cmd := exec.Command(csaBin, append([]string{"worker"}, args...)...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = n.dir, n.env, &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		n.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	n.t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if n.t.Failed() {
			n.t.Logf("%s's worker log:\n%s", n.name, log.String())
		}
	})
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// poll checks cond until it holds; within bounds a failure only.
func poll(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(50 * time.Millisecond) // the poll interval of a condition
	}
}

// remoteInspect is the part of `csa inspect --json` of a remote session
// this test reads.
type remoteInspect struct {
	State  string `json:"state"`
	Worker string `json:"worker"`
	Remote struct {
		LocalID string `json:"local_id"`
		Diff    *struct {
			Files []string `json:"files"`
		} `json:"diff"`
	} `json:"remote"`
}

func (n *node) inspect(dir, id string) remoteInspect {
	n.t.Helper()
	var r remoteInspect
	out := n.must(dir, "inspect", "--json", id)
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		n.t.Fatalf("csa inspect --json %s: %v: %s", id, err, out)
	}
	return r
}

// The scenario with the real Codex: a real 3-node NATS cluster,
// two `csa worker` machines (each with --max-concurrent 1 and its own
// HOME, where Codex talks only to the scripted model server), and a
// caller's repository with a committed file and an uncommitted change.
// Two `csa run --remote --tool codex` runs: the first is held in its
// first model turn until the second is claimed, so the second goes to
// the other worker; each Codex changes a different file (the second from
// the uncommitted content, which travelled with the tree). `csa wait`
// sees both end; `csa apply` brings exactly Codex's changes into the
// caller's tree, leaving its index alone; `csa logs` shows Codex's
// answer.
func TestClusterCodexRemoteRunsApply(t *testing.T) {
	// A missing nats-server fails the test, saying `make nats-server`,
	// even where a missing Codex only skips it.
	if _, err := clustertest.Binary(); err != nil {
		t.Fatal(err)
	}
	codex, err := programBin(tool{name: "codex", program: "codex"})
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("codex is not installed (run `make agents`): %v", err)
		}
		t.Skipf("codex is not installed; run `make agents`: %v", err)
	}
	cl := clustertest.Start(t, 3)

	sc, err := modelserver.Parse([]byte(clusterScript))
	if err != nil {
		t.Fatal(err)
	}
	srv := modelserver.New(sc, modelserver.Options{})
	if _, err := srv.Start(); err != nil { // validates the script, opens its log
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	gate := &gatedModel{srv: srv, hold: []byte("e2e cluster rewrite alpha"), release: make(chan struct{}), arrived: make(chan struct{})}
	front := httptest.NewServer(gate)
	t.Cleanup(front.Close)

	caller := newNode(t, "caller", cl.URL(), front.URL, codex)
	workers := map[string]*node{}
	for _, name := range []string{"w1", "w2"} {
		workers[name] = newNode(t, name, cl.URL(), front.URL, codex)
		workers[name].startWorker("--name", name, "--max-concurrent", "1")
	}
	// Cleanups run last first: a held request goes on before the workers
	// stop (each waits for its runs) and before the model server closes.
	t.Cleanup(gate.open)

	// The caller's repository: two committed files the agents change, and
	// draft.txt, committed and then changed without a commit.
	repo := filepath.Join(caller.dir, "repo")
	caller.git(caller.dir, "init", "-q", "-b", "main", repo)
	files := map[string]string{"alpha.txt": "alpha, committed\n", "beta.txt": "beta, committed\n", "draft.txt": "draft, committed\n"}
	for f, text := range files {
		if err := os.WriteFile(filepath.Join(repo, f), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	caller.git(repo, "add", ".")
	caller.git(repo, "commit", "-q", "-m", "first")
	const draft = "draft, changed and not committed\n"
	if err := os.WriteFile(filepath.Join(repo, "draft.txt"), []byte(draft), 0o644); err != nil {
		t.Fatal(err)
	}
	// git status may refresh the index's stat data once; later status
	// calls take no optional locks, so they never write it.
	caller.git(repo, "status")
	index, err := os.ReadFile(filepath.Join(repo, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}

	poll(t, time.Minute, "two workers heartbeating", func() bool {
		// A cluster still forming answers cluster_unavailable: not yet.
		out, code, _ := caller.run(repo, csaBin, "cluster", "status", "--json")
		var s struct{ Workers []struct{ ID string } }
		json.Unmarshal([]byte(out), &s)
		return code == 0 && len(s.Workers) == 2
	})

	// The first run: in flight (its first model request held) on one
	// worker, which with --max-concurrent 1 takes nothing else meanwhile.
	first := strings.TrimSpace(caller.must(repo, "run", "--remote", "--tool", "codex", "e2e cluster rewrite alpha"))
	select {
	case <-gate.arrived:
	case <-time.After(3 * time.Minute): // a bound for failures only
		t.Fatalf("the first run's Codex never asked the model: %+v", caller.inspect(repo, first))
	}
	firstOn := caller.inspect(repo, first).Worker
	if workers[firstOn] == nil {
		t.Fatalf("the first run is on %q, not a worker of the test", firstOn)
	}
	second := strings.TrimSpace(caller.must(repo, "run", "--remote", "--tool", "codex", "e2e cluster copy the draft"))
	var secondOn string
	poll(t, time.Minute, "the second run claimed", func() bool {
		secondOn = caller.inspect(repo, second).Worker
		return secondOn != ""
	})
	if secondOn == firstOn || workers[secondOn] == nil {
		t.Fatalf("the second run went to %q while the first held %q at its --max-concurrent 1", secondOn, firstOn)
	}
	gate.open()
	t.Logf("first run on %s, second on %s", firstOn, secondOn)

	out, code, stderr := caller.run(repo, csaBin, "wait", "--json", "--timeout", "3m", first, second)
	if code != 0 {
		t.Fatalf("csa wait: exit %d\n%s\n%s\nmodel server saw:%s", code, out, stderr, modelRequests(srv))
	}
	var waited struct {
		Sessions []struct{ ID, State, Worker string }
	}
	if err := json.Unmarshal([]byte(out), &waited); err != nil || len(waited.Sessions) != 2 {
		t.Fatalf("csa wait --json: %v: %s", err, out)
	}
	for _, s := range waited.Sessions {
		want := map[string]string{first: firstOn, second: secondOn}[s.ID]
		if s.State != "completed" || s.Worker != want {
			t.Errorf("csa wait: %+v, want completed on %s", s, want)
		}
	}
	if !srv.Settle(time.Minute) {
		t.Fatal("the model server is still answering after a minute")
	}
	for _, rule := range []string{"alpha", "beta"} {
		turns := 0
		for _, r := range srv.Requests() {
			if r.Rule == rule {
				turns++
			}
		}
		if turns < 2 {
			t.Errorf("rule %s answered %d requests, want both turns:%s", rule, turns, modelRequests(srv))
		}
	}

	// Each diff holds the one file its Codex changed.
	for id, want := range map[string]string{first: "alpha.txt", second: "beta.txt"} {
		r := caller.inspect(repo, id)
		if r.Remote.Diff == nil || !slices.Equal(r.Remote.Diff.Files, []string{want}) {
			t.Errorf("session %s: diff %+v, want only %s", id, r.Remote.Diff, want)
		}
		// The run really was the worker's own local Codex session.
		w := workers[r.Worker]
		if w == nil || r.Remote.LocalID == "" {
			t.Fatalf("session %s: worker %q, local id %q", id, r.Worker, r.Remote.LocalID)
		}
		if local, _ := filepath.Glob(filepath.Join(w.dir, "state", "projects", "*", "sessions", r.Remote.LocalID, "state.toml")); len(local) != 1 {
			t.Errorf("session %s: no local session %s on %s", id, r.Remote.LocalID, r.Worker)
		}
	}

	// Codex's answers, replayed from the cluster.
	for id, want := range map[string]string{first: "Rewrote alpha.txt on the worker.", second: "Copied the draft into beta.txt."} {
		if logs := caller.must(repo, "logs", id); !strings.Contains(logs, want) {
			t.Errorf("csa logs %s does not show Codex's answer %q:\n%s", id, want, logs)
		}
	}

	// Nothing reached the caller's tree before csa apply.
	if got := caller.git(repo, "--no-optional-locks", "status", "--porcelain"); got != " M draft.txt\n" {
		t.Fatalf("the caller's tree before csa apply:\n%s", got)
	}
	caller.must(repo, "apply", first)
	caller.must(repo, "apply", second)
	for f, want := range map[string]string{
		"alpha.txt": "alpha, rewritten by codex on a worker\n", // Codex's write
		"beta.txt":  draft,                                     // the uncommitted draft, as Codex's worker saw it
		"draft.txt": draft,                                     // the caller's own change, kept
	} {
		if b, err := os.ReadFile(filepath.Join(repo, f)); err != nil || string(b) != want {
			t.Errorf("after csa apply, %s holds %q (%v), want %q", f, b, err, want)
		}
	}
	if got := caller.git(repo, "--no-optional-locks", "status", "--porcelain", "--untracked-files=all"); got != " M alpha.txt\n M beta.txt\n M draft.txt\n" {
		t.Errorf("git status after both applies:\n%s", got)
	}
	if after, err := os.ReadFile(filepath.Join(repo, ".git", "index")); err != nil || !bytes.Equal(after, index) {
		t.Errorf("the caller's index changed (%v)", err)
	}
}

func modelRequests(s *modelserver.Server) string {
	var b strings.Builder
	for _, r := range s.Requests() {
		fmt.Fprintf(&b, "\n  %+v", r)
	}
	return b.String()
}
