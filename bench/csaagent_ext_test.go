package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/mcp/mcptest"
	"github.com/csa-dev/csa/internal/proc"
)

// What csa-agent's extension points cost (issue 14): command hooks, the
// MCP client, and the long-lived protocol front ends against a process per
// turn. Every figure is a difference or a ratio against its baseline
// measured in the same run, the variants of one iteration in a random
// order, so all see the same machine. A wrong answer fails the benchmark:
// a broken path reports nothing.

// agentResult is a finished `csa-agent -p --output-format stream-json`
// run: its wall time to the result line and to its exit, and the lines.
type agentResult struct {
	toResult, toExit time.Duration
	toAssistant      time.Duration // to the first assistant line: the model's first answer
	cpu              time.Duration // user and system, with the children it reaped (its MCP servers)
	lines            []map[string]any
	result           map[string]any
}

// runStream runs csa-agent -p with stream-json output in the world's
// project, timing it from the fork to the result line and to its reaping.
func (w *csaAgentWorld) runStream(b *testing.B, args ...string) agentResult {
	b.Helper()
	cmd := exec.Command(csaAgentBin(), append([]string{"-p", "--model", "anthropic/claude-bench", "--output-format", "stream-json", "--verbose"}, args...)...)
	cmd.Dir, cmd.Env = filepath.Join(w.dir, "proj"), w.env
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	var r agentResult
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		if m["type"] == "assistant" && r.toAssistant == 0 {
			r.toAssistant = time.Since(t0)
		}
		if m["type"] == "result" && r.result == nil {
			r.toResult, r.result = time.Since(t0), m
		}
		r.lines = append(r.lines, m)
	}
	err = cmd.Wait()
	r.toExit = time.Since(t0)
	r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if err != nil || r.result == nil {
		b.Fatalf("csa-agent %v: %v\n%s", args, err, errOut.String())
	}
	return r
}

// want fails the benchmark unless the run's result is text after turns
// model requests.
func (r agentResult) want(b *testing.B, text string, turns int) {
	b.Helper()
	if r.result["result"] != text || r.result["is_error"] != false || r.result["num_turns"] != float64(turns) {
		b.Fatalf("result %v, want %q after %d turns", r.result, text, turns)
	}
}

// shuffled calls each of fs once, in a random order.
func shuffled(rng *rand.Rand, fs ...func()) {
	for _, i := range rng.Perm(len(fs)) {
		fs[i]()
	}
}

// median of float samples.
func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// hookCalls is the number of Bash calls of a hooks session.
const hookCalls = 20

// hookSettings is --settings JSON with n PreToolUse and n PostToolUse
// command hooks for Bash, command(event, i) each (distinct: the engine runs
// identical commands once).
func hookSettings(n int, command func(event string, i int) string) string {
	events := map[string]any{}
	for _, ev := range []string{"PreToolUse", "PostToolUse"} {
		var hs []map[string]any
		for i := range n {
			hs = append(hs, map[string]any{"type": "command", "command": command(ev, i)})
		}
		events[ev] = []map[string]any{{"matcher": "Bash", "hooks": hs}}
	}
	b, _ := json.Marshal(map[string]any{"hooks": events})
	return string(b)
}

// BenchmarkAgentHooks: a headless session of 20 Bash calls with no hooks,
// with one PreToolUse and one PostToolUse command hook (`true`), and with
// four of each (run in parallel per event). The figure is the time a hook
// set adds per tool call, against the reference cost of what each hook
// is: a fork and exec of /bin/sh -c true from Go, timed in the same
// iterations.
func BenchmarkAgentHooks(b *testing.B) {
	var s strings.Builder
	s.WriteString("[[rule]]\ncontains = \"hooks session\"\n")
	for range hookCalls {
		s.WriteString("  [[rule.step]]\n  shell = \"echo call\"\n")
	}
	s.WriteString("  [[rule.step]]\n  text = \"hooks done\"\n")
	w := newCSAAgentWorld(b, "agent-hooks", s.String())
	proj := filepath.Join(w.dir, "proj")
	truth := func(_ string, i int) string {
		if i == 0 {
			return "true"
		}
		return fmt.Sprintf("true %d", i) // the same command, distinct text
	}
	variants := []struct {
		name  string
		hooks int
	}{{"none", 0}, {"one", 1}, {"four", 4}}
	args := func(n int, command func(string, int) string) []string {
		a := []string{"--dangerously-skip-permissions"}
		if n > 0 {
			a = append(a, "--settings", hookSettings(n, command))
		}
		return append(a, "hooks session")
	}
	// Check first that the hooks run, once per call each: the same
	// settings with hooks that append a line to a file of their own.
	for _, v := range variants[1:] {
		w.runStream(b, args(v.hooks, func(ev string, i int) string {
			return fmt.Sprintf("echo >> %s", filepath.Join(proj, fmt.Sprintf("%s-%d-%d", ev, v.hooks, i)))
		})...).want(b, "hooks done", hookCalls+1)
		for _, ev := range []string{"PreToolUse", "PostToolUse"} {
			for i := range v.hooks {
				got, _ := os.ReadFile(filepath.Join(proj, fmt.Sprintf("%s-%d-%d", ev, v.hooks, i)))
				if n := bytes.Count(got, []byte("\n")); n != hookCalls {
					b.Fatalf("%s hook %d of %d ran %d times in %d calls", ev, i, v.hooks, n, hookCalls)
				}
			}
		}
	}
	// The reference: what one hook is, run as the engine runs it
	// (proc.Capture: sh -c true in its own session, stdin fed, output
	// read, killed with its parent), from this process.
	env := append(w.env[:len(w.env):len(w.env)], "CLAUDE_PROJECT_DIR="+proj)
	capture := func() {
		got, err := proc.Capture(context.Background(), proc.Spec{Path: "/bin/sh", Args: []string{"-c", "true"}, Env: env,
			Dir: proj, Stdin: strings.NewReader(`{"hook_event_name":"PreToolUse"}`), DieWithParent: true}, time.Second)
		if err != nil || got.ExitCode != 0 {
			b.Errorf("sh -c true: %v %+v", err, got)
		}
	}
	// spawn is the time of one hook, par at once (as the engine runs an
	// event's hooks), per round.
	spawn := func(par int) time.Duration {
		t0 := time.Now()
		for range hookCalls {
			var wg sync.WaitGroup
			for range par {
				wg.Go(capture)
			}
			wg.Wait()
		}
		return time.Since(t0) / hookCalls
	}
	rng := rand.New(rand.NewPCG(14, 1))
	for range 2 { // warm up
		for _, v := range variants {
			w.runStream(b, args(v.hooks, truth)...)
		}
	}
	b.ResetTimer()
	took := make([][]time.Duration, len(variants))
	var sh, sh4 []time.Duration
	for range b.N {
		var fs []func()
		for i, v := range variants {
			fs = append(fs, func() {
				r := w.runStream(b, args(v.hooks, truth)...)
				r.want(b, "hooks done", hookCalls+1)
				took[i] = append(took[i], r.toResult)
			})
		}
		fs = append(fs, func() { sh = append(sh, spawn(1)) }, func() { sh4 = append(sh4, spawn(4)) })
		shuffled(rng, fs...)
	}
	b.StopTimer()
	perCall := func(i int) (added time.Duration, ratio float64) {
		var ds []time.Duration
		var rs []float64
		for j := range took[i] {
			ds = append(ds, (took[i][j]-took[0][j])/hookCalls)
			rs = append(rs, float64(took[i][j])/float64(took[0][j]))
		}
		return quantile(ds, 0.5), medianOf(rs)
	}
	base := quantile(took[0], 0.5) / hookCalls
	add1, r1 := perCall(1)
	add4, r4 := perCall(2)
	shp50, sh4p50 := quantile(sh, 0.5), quantile(sh4, 0.5)
	b.ReportMetric(ms(base), "none-per-call-ms")
	b.ReportMetric(ms(add1), "one-added-per-call-ms")
	b.ReportMetric(ms(add4), "four-added-per-call-ms")
	b.ReportMetric(r1, "one-ratio")
	b.ReportMetric(r4, "four-ratio")
	b.ReportMetric(ms(shp50), "sh-spawn-ms")
	b.ReportMetric(ms(sh4p50), "sh-spawn-4-at-once-ms")
	record("agent-hooks", fmt.Sprintf("issue 14: hooks' added time per Bash call (%d calls; session per call %.2f ms without)", hookCalls, ms(base)),
		fmt.Sprintf("1+1 hooks %+.2f ms (%.2fx), 4+4 %+.2f ms (%.2fx); sh -c true %.2f ms, 4 at once %.2f ms", ms(add1), r1, ms(add4), r4, ms(shp50), ms(sh4p50)),
		fmt.Sprintf("n=%d", b.N), "info")
}

// mcpConfig is --mcp-config JSON with n server-everything servers.
func mcpConfig(everything string, n int) string {
	servers := map[string]any{}
	for i := range n {
		servers[fmt.Sprintf("e%d", i)] = map[string]any{"command": everything}
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	return string(b)
}

// connectedServers counts the servers the init line reports connected.
func connectedServers(r agentResult) int {
	n := 0
	for _, l := range r.lines {
		if l["type"] == "system" && l["subtype"] == "init" {
			ss, _ := l["mcp_servers"].([]any)
			for _, s := range ss {
				if m, _ := s.(map[string]any); m["status"] == "connected" {
					n++
				}
			}
		}
	}
	return n
}

// directMCP starts server-everything with the go-sdk client, lists its
// tools and returns the time that took, with the session (for calls).
func directMCP(b *testing.B, everything string) (time.Duration, *mcp.ClientSession) {
	b.Helper()
	d, cs, err := startDirect(everything)
	if err != nil {
		b.Fatal(err)
	}
	return d, cs
}

// startDirect is directMCP for any goroutine.
func startDirect(everything string) (time.Duration, *mcp.ClientSession, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	t0 := time.Now()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: exec.Command(everything), TerminateDuration: 50 * time.Millisecond}, nil) // closed: not timed
	if err != nil {
		return 0, nil, err
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		cs.Close()
		return 0, nil, err
	}
	return time.Since(t0), cs, nil
}

// BenchmarkAgentMCPStart: `csa-agent -p` from its start to its result
// (and to its exit) with no MCP servers, one and three server-everything
// over stdio. The servers start in parallel, so three should cost about
// what one does; the reference is one server-everything started and
// listed by the go-sdk client directly, in the same iterations.
func BenchmarkAgentMCPStart(b *testing.B) {
	everything := requireMCP(b, mcptest.Everything)
	w := newCSAAgentWorld(b, "agent-mcp-start", "[[rule]]\ncontains = \"mcp start\"\n  [[rule.step]]\n  text = \"started\"\n")
	counts := []int{0, 1, 3}
	run := func(n int) agentResult {
		r := w.runStream(b, "--strict-mcp-config", "--mcp-config", mcpConfig(everything, n), "mcp start")
		r.want(b, "started", 1)
		if got := connectedServers(r); got != n {
			b.Fatalf("%d MCP servers connected, want %d", got, n)
		}
		return r
	}
	for _, n := range counts { // warm up (node's files into the page cache)
		run(n)
	}
	rng := rand.New(rand.NewPCG(14, 2))
	b.ResetTimer()
	res := make([][]time.Duration, len(counts))
	exits := make([][]time.Duration, len(counts))
	cpus := make([][]time.Duration, len(counts))
	var direct, direct3 []time.Duration
	// directN starts n servers at once from here, each started and listed
	// by its own go-sdk client: the best a parallel start can do here.
	directN := func(n int) time.Duration {
		t0 := time.Now()
		var wg sync.WaitGroup
		css := make([]*mcp.ClientSession, n)
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() { _, css[i], errs[i] = startDirect(everything) })
		}
		wg.Wait()
		d := time.Since(t0)
		for i, cs := range css {
			if errs[i] != nil {
				b.Fatal(errs[i])
			}
			cs.Close()
		}
		return d
	}
	for range b.N {
		var fs []func()
		for i, n := range counts {
			fs = append(fs, func() {
				r := run(n)
				res[i] = append(res[i], r.toResult)
				exits[i] = append(exits[i], r.toExit)
				cpus[i] = append(cpus[i], r.cpu)
			})
		}
		fs = append(fs, func() { direct = append(direct, directN(1)) }, func() { direct3 = append(direct3, directN(3)) })
		shuffled(rng, fs...)
	}
	b.StopTimer()
	added := func(i int, of [][]time.Duration) time.Duration {
		var ds []time.Duration
		for j := range of[i] {
			ds = append(ds, of[i][j]-of[0][j])
		}
		return quantile(ds, 0.5)
	}
	p0 := quantile(res[0], 0.5)
	a1, a3 := added(1, res), added(2, res)
	e1, e3 := added(1, exits), added(2, exits)
	d50, d350 := quantile(direct, 0.5), quantile(direct3, 0.5)
	c1, c3 := added(1, cpus), added(2, cpus)
	b.ReportMetric(ms(p0), "none-to-result-ms")
	b.ReportMetric(ms(a1), "one-added-ms")
	b.ReportMetric(ms(a3), "three-added-ms")
	b.ReportMetric(float64(a3)/float64(a1), "three-vs-one")
	b.ReportMetric(ms(e1), "one-added-to-exit-ms")
	b.ReportMetric(ms(e3), "three-added-to-exit-ms")
	b.ReportMetric(ms(c1), "one-added-cpu-ms")
	b.ReportMetric(ms(c3), "three-added-cpu-ms")
	b.ReportMetric(ms(d50), "direct-one-ms")
	b.ReportMetric(ms(d350), "direct-three-at-once-ms")
	b.ReportMetric(float64(d350)/float64(d50), "direct-three-vs-one")
	record("agent-mcp-start", fmt.Sprintf("issue 14: csa-agent -p to its result with MCP servers (%.1f ms without)", ms(p0)),
		fmt.Sprintf("1 server %+.0f ms, 3 servers %+.0f ms (%.2fx one); to exit %+.0f / %+.0f ms; CPU %+.0f / %+.0f ms; direct start+list 1 %.0f ms, 3 at once %.0f ms (%.2fx)",
			ms(a1), ms(a3), float64(a3)/float64(a1), ms(e1), ms(e3), ms(c1), ms(c3), ms(d50), ms(d350), float64(d350)/float64(d50)),
		"3 ≈ 1", "info")
}

// mcpCalls is the number of tool calls of a session of BenchmarkAgentMCPCall.
const mcpCalls = 40

// BenchmarkAgentMCPCall: a session of 40 calls of server-everything's echo
// (mcp__e0__echo) against one of 40 Reads of a one-line file, both with
// the same server configured; the difference per call is what an MCP call
// costs over a built-in one. Each session is timed from the model's first
// answer (its first assistant line on stdout) to the result, which leaves
// out the process's and the server's start (whose noise would swamp the
// calls). The reference is the same echo called by the go-sdk client
// directly.
func BenchmarkAgentMCPCall(b *testing.B) {
	everything := requireMCP(b, mcptest.Everything)
	var s strings.Builder
	// The echo session: every step after the first needs the echo's
	// result in the request (body), else the other rule gives up.
	s.WriteString("[[rule]]\ncontains = \"echo session\"\nbody = \"Echo: bench-echo\"\n")
	for range mcpCalls {
		s.WriteString("  [[rule.step]]\n  call = { name = \"mcp__e0__echo\", args = { message = \"bench-echo\" } }\n")
	}
	s.WriteString("  [[rule.step]]\n  text = \"echoed\"\n")
	s.WriteString("[[rule]]\ncontains = \"echo session\"\n  [[rule.step]]\n  call = { name = \"mcp__e0__echo\", args = { message = \"bench-echo\" } }\n  [[rule.step]]\n  text = \"the echo never came back\"\n")
	s.WriteString("[[rule]]\ncontains = \"read session\"\nbody = \"bench-read-line\"\n")
	for range mcpCalls {
		s.WriteString("  [[rule.step]]\n  call = { name = \"Read\", args = { file_path = \"{cwd}/small.txt\" } }\n")
	}
	s.WriteString("  [[rule.step]]\n  text = \"read\"\n")
	s.WriteString("[[rule]]\ncontains = \"read session\"\n  [[rule.step]]\n  call = { name = \"Read\", args = { file_path = \"{cwd}/small.txt\" } }\n  [[rule.step]]\n  text = \"the read never came back\"\n")
	w := newCSAAgentWorld(b, "agent-mcp-call", s.String())
	if err := os.WriteFile(filepath.Join(w.dir, "proj", "small.txt"), []byte("bench-read-line\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	conf := mcpConfig(everything, 1)
	session := func(prompt, want string) agentResult {
		r := w.runStream(b, "--dangerously-skip-permissions", "--strict-mcp-config", "--mcp-config", conf, prompt)
		r.want(b, want, mcpCalls+1)
		return r
	}
	// echo times mcpCalls echo calls of the go-sdk client on cs.
	echo := func(cs *mcp.ClientSession) time.Duration {
		t0 := time.Now()
		for range mcpCalls {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "bench-echo"}})
			if err != nil || res.IsError {
				b.Fatalf("echo: %v %v", err, res)
			}
		}
		return time.Since(t0) / mcpCalls
	}
	// The direct references: a server that has answered many calls, and a
	// fresh one's first calls (as each csa-agent session's server is).
	_, warm := directMCP(b, everything)
	defer warm.Close()
	fresh := func() time.Duration {
		_, cs := directMCP(b, everything)
		defer cs.Close()
		return echo(cs)
	}
	session("echo session", "echoed")
	session("read session", "read")
	rng := rand.New(rand.NewPCG(14, 3))
	b.ResetTimer()
	var mcpT, readT, direct, directFresh []time.Duration
	for range b.N {
		shuffled(rng,
			func() { r := session("echo session", "echoed"); mcpT = append(mcpT, r.toResult-r.toAssistant) },
			func() { r := session("read session", "read"); readT = append(readT, r.toResult-r.toAssistant) },
			func() { direct = append(direct, echo(warm)) },
			func() { directFresh = append(directFresh, fresh()) })
	}
	b.StopTimer()
	var diff []time.Duration
	var ratio []float64
	for j := range mcpT {
		diff = append(diff, (mcpT[j]-readT[j])/mcpCalls)
		ratio = append(ratio, float64(mcpT[j])/float64(readT[j]))
	}
	add, r := quantile(diff, 0.5), medianOf(ratio)
	read50 := quantile(readT, 0.5)
	d50, f50 := quantile(direct, 0.5), quantile(directFresh, 0.5)
	b.ReportMetric(ms(read50/mcpCalls), "read-per-call-ms")
	b.ReportMetric(ms(add), "mcp-added-per-call-ms")
	b.ReportMetric(r, "mcp-vs-read")
	b.ReportMetric(ms(d50), "direct-echo-warm-ms")
	b.ReportMetric(ms(f50), "direct-echo-fresh-ms")
	record("agent-mcp-call", fmt.Sprintf("issue 14: an MCP call (echo) over a built-in Read, per call (%d calls)", mcpCalls),
		fmt.Sprintf("%+.2f ms over %.2f ms (%.2fx); the echo by a direct go-sdk client: a fresh server's first %d calls %.2f ms each, a warm server %.2f ms", ms(add), ms(read50/mcpCalls), r, mcpCalls, ms(f50), ms(d50)),
		fmt.Sprintf("n=%d", b.N), "info")
}

// frontEnd runs one turn of the same prompt and checks its answer.
type frontEnd struct {
	name string
	turn func() // fails the benchmark on a wrong answer
}

const frontEndScript = "[[rule]]\ncontains = \"front end turn\"\n  [[rule.step]]\n  text = \"turn answered\"\n"

// BenchmarkAgentFrontEnds: one turn, the same scripted answer, through
// `csa-agent -p` (a process per turn), `csa-agent app-server` (turn/start
// to turn/completed), `csa-agent --acp` (session/prompt) and `csa-agent
// mcp-serve` (tools/call csa-agent-reply), the long-lived ones on one
// process and one conversation each. The turns go round robin, the order
// shuffled each round; the first turn of each is left out.
func BenchmarkAgentFrontEnds(b *testing.B) {
	const turns = 50
	w := newCSAAgentWorld(b, "agent-front-ends", frontEndScript)
	w.env = append(w.env, "CSA_AGENT_MODEL=anthropic/claude-bench")
	proj := filepath.Join(w.dir, "proj")
	ends := []frontEnd{
		{"print", func() {
			w.runStream(b, "--dangerously-skip-permissions", "front end turn").want(b, "turn answered", 1)
		}},
		{"app-server", appServerTurns(b, w, proj)},
		{"acp", acpTurns(b, w, proj)},
		{"mcp-serve", mcpServeTurns(b, w, proj)},
	}
	for _, e := range ends { // the first turn: left out
		e.turn()
	}
	rng := rand.New(rand.NewPCG(14, 4))
	b.ResetTimer()
	took := make([][]time.Duration, len(ends))
	for range b.N {
		for range turns - 1 {
			var fs []func()
			for i, e := range ends {
				fs = append(fs, func() {
					t0 := time.Now()
					e.turn()
					took[i] = append(took[i], time.Since(t0))
				})
			}
			shuffled(rng, fs...)
		}
	}
	b.StopTimer()
	p50s := make([]time.Duration, len(ends))
	var parts []string
	for i, e := range ends {
		p50, p95 := quantile(took[i], 0.5), quantile(took[i], 0.95)
		p50s[i] = p50
		b.ReportMetric(ms(p50), e.name+"-p50-ms")
		b.ReportMetric(ms(p95), e.name+"-p95-ms")
		part := fmt.Sprintf("%s %.2f / %.2f ms", e.name, ms(p50), ms(p95))
		if i > 0 {
			b.ReportMetric(float64(p50)/float64(p50s[0]), e.name+"-vs-print")
			part += fmt.Sprintf(" (%.2fx)", float64(p50)/float64(p50s[0]))
		}
		parts = append(parts, part)
	}
	record("agent-front-ends", fmt.Sprintf("issue 14: a turn after the first, p50 / p95 (n=%d each)", len(took[0])),
		strings.Join(parts, "; "), "(comparison)", "info")
}

// longLived starts a csa-agent front end with piped stdio; it ends when
// the benchmark does (its stdin closed, then killed if still there).
func longLived(b *testing.B, w *csaAgentWorld, dir string, args ...string) (io.WriteCloser, io.Reader) {
	b.Helper()
	cmd := exec.Command(csaAgentBin(), args...)
	cmd.Dir, cmd.Env = dir, w.env
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	b.Cleanup(func() {
		in.Close()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	return in, out
}

// appServerTurns opens a thread on `csa-agent app-server` and returns a
// turn: turn/start, then the notifications up to turn/completed, whose
// agent message must be the scripted answer.
func appServerTurns(b *testing.B, w *csaAgentWorld, dir string) func() {
	in, out := longLived(b, w, dir, "app-server")
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	id := 0
	send := func(method string, params any) int {
		id++
		line, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
		if _, err := in.Write(append(line, '\n')); err != nil {
			b.Fatal(err)
		}
		return id
	}
	// next reads messages until ok accepts one.
	next := func(what string, ok func(m map[string]any) bool) map[string]any {
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				b.Fatalf("app-server wrote %q", sc.Text())
			}
			if m["error"] != nil {
				b.Fatalf("app-server waiting for %s: %v", what, m)
			}
			if ok(m) {
				return m
			}
		}
		b.Fatalf("app-server ended waiting for %s", what)
		return nil
	}
	answer := func(want int) func(m map[string]any) bool {
		return func(m map[string]any) bool { return m["method"] == nil && m["id"] == float64(want) }
	}
	next("initialize", answer(send("initialize", map[string]any{"clientInfo": map[string]any{"name": "bench", "version": "1"}})))
	in.Write([]byte(`{"method":"initialized"}` + "\n"))
	r := next("thread/start", answer(send("thread/start", map[string]any{"cwd": dir, "sandbox": "danger-full-access", "approvalPolicy": "never"})))
	thread, _ := r["result"].(map[string]any)["thread"].(map[string]any)["id"].(string)
	if thread == "" {
		b.Fatalf("thread/start: %v", r)
	}
	return func() {
		send("turn/start", map[string]any{"threadId": thread, "input": []any{map[string]any{"type": "text", "text": "front end turn"}}})
		var text string
		done := next("turn/completed", func(m map[string]any) bool {
			if m["method"] == "item/completed" {
				if it, _ := params(m)["item"].(map[string]any); it["type"] == "agentMessage" {
					text, _ = it["text"].(string)
				}
			}
			return m["method"] == "turn/completed"
		})
		if turn, _ := params(done)["turn"].(map[string]any); turn["status"] != "completed" || text != "turn answered" {
			b.Fatalf("app-server turn: %v, agent message %q", done, text)
		}
	}
}

func params(m map[string]any) map[string]any { p, _ := m["params"].(map[string]any); return p }

// mcpServeTurns starts a conversation on `csa-agent mcp-serve` (the
// csa-agent tool) and returns a turn: csa-agent-reply on it.
func mcpServeTurns(b *testing.B, w *csaAgentWorld, dir string) func() {
	in, out := longLived(b, w, dir, "mcp-serve")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: io.NopCloser(out), Writer: in}, nil)
	if err != nil {
		b.Fatal(err)
	}
	call := func(tool string, args map[string]any) map[string]any {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			b.Fatalf("%s: %v", tool, err)
		}
		sc, _ := res.StructuredContent.(map[string]any)
		if res.IsError || sc["content"] != "turn answered" || sc["end"] != "done" {
			b.Fatalf("%s: %+v", tool, sc)
		}
		return sc
	}
	conv, _ := call("csa-agent", map[string]any{"prompt": "front end turn", "permission_mode": "bypassPermissions"})["conversation_id"].(string)
	return func() {
		call("csa-agent-reply", map[string]any{"conversation_id": conv, "prompt": "front end turn"})
	}
}

// acpText is an ACP client that keeps the agent's message text.
type acpText struct {
	nopClient
	mu   sync.Mutex
	text strings.Builder
}

func (c *acpText) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	if m := n.Update.AgentMessageChunk; m != nil && m.Content.Text != nil {
		c.mu.Lock()
		c.text.WriteString(m.Content.Text.Text)
		c.mu.Unlock()
	}
	return nil
}

func (c *acpText) take() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.text.String()
	c.text.Reset()
	return s
}

// acpTurns opens a session on `csa-agent --acp` and returns a turn:
// session/prompt, answered end_turn with the scripted text streamed.
func acpTurns(b *testing.B, w *csaAgentWorld, dir string) func() {
	in, out := longLived(b, w, dir, "--acp")
	c := &acpText{}
	conn := sdk.NewClientSideConnection(c, in, out)
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx := context.Background()
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		b.Fatal(err)
	}
	s, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		b.Fatal(err)
	}
	return func() {
		res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("front end turn")}})
		if err != nil {
			b.Fatalf("session/prompt: %v", err)
		}
		// Updates are notifications sent before the answer; the SDK
		// handles them in order, but on its own goroutine: wait briefly.
		got := c.take()
		for deadline := time.Now().Add(5 * time.Second); got != "turn answered" && time.Now().Before(deadline); {
			time.Sleep(50 * time.Microsecond)
			got += c.take()
		}
		if res.StopReason != sdk.StopReasonEndTurn || got != "turn answered" {
			b.Fatalf("session/prompt: %s, text %q", res.StopReason, got)
		}
	}
}
