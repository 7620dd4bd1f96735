package bench

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/testkit/modelserver"
)

// BenchmarkAgentStartLoaded is issue 25's start-up target: csa-agent's
// process start to its first model request with a Claude Code set-up of
// 6 plugins, 30 agents and 15 skills (writeClaudeSetup) at most 15 ms.
// Each iteration runs, in a random order, the floor (an empty HOME and
// project), the set-up, and the set-up with --strict-mcp-config (its
// loading without the plugins' MCP servers, which Claude Code, too,
// connects before its first request in -p). Before timing, one run must
// show the model every skill, command, agent and memory file. With
// $CSA_BENCH_AGENT_BASE naming another csa-agent (an earlier build, best
// copied beside this one), its floor and set-up runs (with and without
// the MCP servers) join each iteration.
func BenchmarkAgentStartLoaded(b *testing.B) {
	srv, url := scriptedServer(b, agentScript)
	base := filepath.Join(benchDir, "agent-start-loaded")
	os.RemoveAll(base)
	floorHome, floorProj := filepath.Join(base, "floor", "home"), filepath.Join(base, "floor", "proj")
	home, proj := filepath.Join(base, "loaded", "home"), filepath.Join(base, "loaded", "proj")
	for _, p := range []string{floorHome, floorProj, home, proj} {
		if err := os.MkdirAll(filepath.Join(p, ".git"), 0o700); err != nil {
			b.Fatal(err)
		}
		writeFiles(b, map[string]string{filepath.Join(p, ".git", "HEAD"): "ref: refs/heads/main\n"})
	}
	set := writeClaudeSetup(b, home, proj, []string{csaBin, "mcp-server"})
	env := func(home, url string) []string {
		return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home,
			"XDG_STATE_HOME=" + filepath.Join(base, "state"), "XDG_CONFIG_HOME=" + filepath.Join(base, "config"),
			"ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=bench"}
	}
	command := func(bin, home, proj, url string, args ...string) func() *exec.Cmd {
		return func() *exec.Cmd {
			cmd := exec.Command(bin, append([]string{"-p", "--model", "anthropic/claude-bench", agentPrompt}, args...)...)
			cmd.Dir, cmd.Env = proj, env(home, url)
			return cmd
		}
	}
	bin, baseBin := csaAgentBin(), os.Getenv("CSA_BENCH_AGENT_BASE")
	checkLoaded(b, set, func(url string) *exec.Cmd { return command(bin, home, proj, url)() })

	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 25))
	var floor, loaded, strict, added, baseFloor, baseLoaded, baseStrict []time.Duration
	for i := 0; i < b.N; i++ {
		var f, l time.Duration
		runs := []func(){
			func() { f = firstRequest(b, srv, command(bin, floorHome, floorProj, url)) },
			func() { l = firstRequest(b, srv, command(bin, home, proj, url)) },
			func() {
				strict = append(strict, firstRequest(b, srv, command(bin, home, proj, url, "--strict-mcp-config")))
			},
		}
		if baseBin != "" {
			runs = append(runs,
				func() {
					baseFloor = append(baseFloor, firstRequest(b, srv, command(baseBin, floorHome, floorProj, url)))
				},
				func() { baseLoaded = append(baseLoaded, firstRequest(b, srv, command(baseBin, home, proj, url))) },
				func() {
					baseStrict = append(baseStrict, firstRequest(b, srv, command(baseBin, home, proj, url, "--strict-mcp-config")))
				})
		}
		shuffled(rng, runs...)
		floor, loaded, added = append(floor, f), append(loaded, l), append(added, l-f)
	}
	f50, f90 := report(b, "floor", floor)
	l50, l90 := report(b, "loaded", loaded)
	s50, s90 := report(b, "loaded-no-mcp", strict)
	a50, a90 := report(b, "added", added)
	record("agent-start-loaded", "csa-agent: start to first request, 6 plugins, 30 agents, 15 skills",
		fmt.Sprintf("p50 %.1f ms, p90 %.1f ms", ms(l50), ms(l90)), "≤ 15 ms", within(l50, l90, agentFirstRequestLimit))
	record("agent-start-loaded-no-mcp", "  the same without the plugins' MCP servers",
		fmt.Sprintf("p50 %.1f ms, p90 %.1f ms", ms(s50), ms(s90)), "info", "info")
	record("agent-start-floor", "  floor: empty HOME and project, same run",
		fmt.Sprintf("p50 %.1f ms, p90 %.1f ms", ms(f50), ms(f90)), "info", "info")
	record("agent-start-added", "  added by the set-up, pair by pair",
		fmt.Sprintf("p50 %+.1f ms, p90 %+.1f ms", ms(a50), ms(a90)), "info", "info")
	if baseBin != "" {
		bf50, bf90 := report(b, "base-floor", baseFloor)
		bl50, bl90 := report(b, "base-loaded", baseLoaded)
		bs50, bs90 := report(b, "base-loaded-no-mcp", baseStrict)
		record("agent-start-base", "  the set-up / without MCP / the floor, "+baseBin,
			fmt.Sprintf("p50 %.1f / %.1f / %.1f ms, p90 %.1f / %.1f / %.1f ms",
				ms(bl50), ms(bs50), ms(bf50), ms(bl90), ms(bs90), ms(bf90)), "info", "info")
	}
	record("agent-start-pressure", "  CPU pressure avg60 at the end", cpuPressure(), "info", "info")
}

// checkLoaded runs the set-up once against a server that keeps the
// requests and fails unless the first one offers every skill, command and
// agent and holds every memory file.
func checkLoaded(b *testing.B, set claudeSetup, command func(url string) *exec.Cmd) {
	b.Helper()
	sc, err := modelserver.Parse([]byte(agentScript))
	if err != nil {
		b.Fatal(err)
	}
	dump := b.TempDir()
	srv := modelserver.New(sc, modelserver.Options{DumpDir: dump})
	url, err := srv.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	cmd := command(url)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), agentWord) {
		b.Fatalf("csa-agent with the set-up: %v\n%s", err, out)
	}
	srv.Settle(time.Minute)
	entries, err := os.ReadDir(dump)
	if err != nil {
		b.Fatal(err)
	}
	var body string
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dump, e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		if strings.Contains(string(data), agentPrompt) && strings.Contains(string(data), `"messages"`) {
			body = string(data)
			break
		}
	}
	for _, want := range append(append(append([]string(nil), set.skills...), set.agents...), set.markers...) {
		if !strings.Contains(body, want) {
			b.Fatalf("the first request does not hold %q: the set-up was not loaded\n%.2000s", want, body)
		}
	}
}
