package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/testkit/devenv"
)

// failoverScript rate-limits the first model of the tier for good (by
// model name; OpenCode, which knows only its configured model, by its API)
// and lets the next one answer.
const failoverScript = `
[[rule]]
name = "busy"
%s
contains = "bench failover"
  [[rule.step]]
  error = "rate_limit"
  message = "Rate limit reached for requests."

[[rule]]
name = "answer"
contains = "bench failover"
  [[rule.step]]
  text = "Answered by the next model."
`

// BenchmarkFailover is issue 11's item 4: per program, a tier whose first
// model is that real program answering 429 for good, with the program's
// own retry policy (Claude Code retries for minutes), and whose next model
// is another program that answers. It times from the first 429 the model
// server sent to the next model's answer (csa run exiting with it). Goal:
// at most 10 s for each of the four.
func BenchmarkFailover(b *testing.B) {
	for _, s := range agents.Registry {
		b.Run(string(s.Tool), func(b *testing.B) { failover(b, s) })
	}
}

func failover(b *testing.B, s *agents.Spec) {
	next := agents.Codex
	if s.Tool == agents.Codex {
		next = agents.ClaudeCode
	}
	busy, first := `model = "busy"`, string(s.Tool)+"/p1/busy"
	switch s.Tool {
	case agents.Opencode:
		busy, first = `api = "chat"`, "opencode/csa/scripted"
	case agents.CSAAgent: // provider/model: a provider it speaks
		first = "csa-agent/anthropic/busy"
	}
	srv, url := scriptedServer(b, fmt.Sprintf(failoverScript, busy))
	base := filepath.Join(benchDir, "failover-"+string(s.Tool))
	os.RemoveAll(base)
	proj, cfgDir := filepath.Join(base, "proj"), filepath.Join(base, "config")
	for _, d := range []string{filepath.Join(proj, ".csa"), cfgDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	nextSpec, _ := agents.Lookup(string(next))
	programs := map[agents.Tool]string{}
	for _, t := range []*agents.Spec{s, nextSpec} {
		bin, err := programBin(t.Tool)
		if err != nil {
			b.Fatalf("%s is not installed; run `make agents`: %v", t.Tool, err)
		}
		programs[t.Tool] = bin
	}
	cfg := fmt.Sprintf("[tiers.t]\nmodels = [%q, %q]\n", first, string(next)+"/p2/m") + devenv.CSAConfig(programs)
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
	prep, err := devenv.Prepare(filepath.Join(base, "home"), url, devenv.Options{
		Programs: []string{s.Program.Name, nextSpec.Program.Name}, Retries: devenv.ProgramRetries, Trusted: []string{proj},
	})
	if err != nil {
		b.Fatal(err)
	}
	var took []time.Duration
	b.ResetTimer()
	for i := range b.N {
		// A fresh state each time: no cooldown from the last run.
		env := devenv.Merge(benchEnv(filepath.Join(base, fmt.Sprintf("state-%d", i)), cfgDir), prep)
		since := time.Now()
		c := exec.Command(csaBin, "run", "--json", "--tier", "t", "bench failover")
		c.Dir, c.Env = proj, env
		out, err := c.Output()
		end := time.Now()
		if err != nil || !strings.Contains(string(out), "Answered by the next model.") {
			b.Fatalf("run %d: %v\n%s", i, err, out)
		}
		var first429 time.Time
		for _, r := range srv.Requests() {
			if r.Status == 429 && r.Time.After(since) {
				first429 = r.Time
				break
			}
		}
		if first429.IsZero() {
			b.Fatalf("run %d: no 429 was sent", i)
		}
		took = append(took, end.Sub(first429))
	}
	b.StopTimer()
	p50, p90 := report(b, "first-429-to-answer", took)
	record("failover-"+string(s.Tool), fmt.Sprintf("tier failover, %s (own retries) to %s: first 429 to the answer", s.Tool, next),
		fmt.Sprintf("p50 %.1f s, p90 %.1f s", p50.Seconds(), p90.Seconds()), fmt.Sprintf("n=%d, <= 10 s", len(took)),
		verdict(p90 <= 10*time.Second))
}
