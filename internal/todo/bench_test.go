package todo

import (
	"fmt"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/proc"
)

// bigPlan is a plan of n tasks, each with a prompt line: task i comes
// after task i-1 (a chain as deep as the plan is long) and task i/2.
func bigPlan(n int) string {
	var b strings.Builder
	b.WriteString("# A big plan\n\nstatus: approved\n\nMany tasks.\n\n")
	prompt := strings.Repeat("p", 300)
	for i := range n {
		fmt.Fprintf(&b, "- [ ] t%d: task %d", i, i)
		if i > 0 {
			fmt.Fprintf(&b, " (after: t%d, t%d)", i-1, i/2)
		}
		fmt.Fprintf(&b, "\n  tool: codex\n  prompt: %s\n", prompt)
	}
	return b.String()
}

// BenchmarkParse parses and checks a plan of 20,000 tasks (issue 23:
// target at most 1 s), and orders it by depth as csa todo dag does.
func BenchmarkParse(b *testing.B) {
	text := bigPlan(20000)
	b.Run("parse", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		cpu := proc.SelfCPU()
		for range b.N {
			if p, err := Parse("big.md", text); err != nil || len(p.Tasks) != 20000 {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(proc.SelfCPU()-cpu)/1e6/float64(b.N), "cpu-ms/op")
	})
	p, err := Parse("big.md", text)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("levels", func(b *testing.B) {
		for range b.N {
			if l := Levels(p); len(l) != 20000 {
				b.Fatalf("%d levels", len(l))
			}
		}
	})
}
