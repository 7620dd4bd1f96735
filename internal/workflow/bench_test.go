package workflow

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/proc"
)

// bigWorkflow writes a workflow of n steps into dir: agent and shell steps
// that read the step before, every tenth under an IF, every hundred in a
// FOR, and the last hundred from an included file.
func bigWorkflow(b *testing.B, dir string, n int) string {
	var w, inc strings.Builder
	w.WriteString("+++\nname = \"big\"\ntool = \"codex\"\n[variables]\nmode = \"x\"\nitems = [\"a\", \"b\"]\n+++\nA big workflow.\n\n")
	text := strings.Repeat("t", 300)
	for i := 1; i <= n; i++ {
		out := &w
		if i > n-100 {
			out = &inc
		}
		if i%100 == 1 && i <= n-100 {
			fmt.Fprintf(out, "## FOR x%d IN ${items} MAX 5\n", i)
		}
		if i%10 == 0 {
			fmt.Fprintf(out, "## IF steps.%d.exit_code == 0 && mode == \"x\"\n", i-1)
		}
		fmt.Fprintf(out, "## Step %d: step %d\n", i, i)
		switch {
		case i == 1:
			out.WriteString("Do ${mode}.\n")
		case i%2 == 0:
			fmt.Fprintf(out, "OnFail: retry 2\nTimeout: 10m\n```sh\necho ${steps.%d.output} %s\n```\n", i-1, text)
		default:
			fmt.Fprintf(out, "Tool: claude-code\nRead ${steps.%d.output} and %s\n", i-1, text)
		}
		if i%10 == 0 {
			out.WriteString("## ENDIF\n")
		}
		if i%100 == 0 && i <= n-100 {
			out.WriteString("## ENDFOR\n")
		}
		out.WriteString("\n")
	}
	w.WriteString("## INCLUDE inc.md\n")
	for name, s := range map[string]string{"big.md": w.String(), "inc.md": inc.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	return filepath.Join(dir, "big.md")
}

// BenchmarkCompile reads and checks a workflow of 20,000 steps (issue 23:
// target at most 1 s).
func BenchmarkCompile(b *testing.B) {
	path := bigWorkflow(b, b.TempDir(), 20000)
	b.ResetTimer()
	cpu := proc.SelfCPU()
	for range b.N {
		if p, err := Compile(path, nil); err != nil || p.Steps != 20000 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(proc.SelfCPU()-cpu)/1e6/float64(b.N), "cpu-ms/op")
}
