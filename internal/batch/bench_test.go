package batch

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/proc"
)

// bigTasks is the number of tasks of the benchmarks' files (issue 23: a
// 9 MB batch of 20,000 tasks is parsed and checked in at most 1 s).
const bigTasks = 20000

// bigBatch writes n tasks of about 450 bytes each: task i depends on task
// i-1 (a chain as deep as the file is long) and on task i/2. extra is
// added to every task (an unknown key makes the file one to refuse).
func bigBatch(format string, n int, extra map[string]string) []byte {
	prompt := strings.Repeat("p", 400)
	var b strings.Builder
	if format == "json" {
		b.WriteString("{\"tasks\": [\n")
	}
	for i := range n {
		t := map[string]any{"id": fmt.Sprintf("t%d", i), "prompt": prompt, "tool": "codex", "timeout": "10m"}
		if i > 0 {
			t["depends_on"] = []string{fmt.Sprintf("t%d", i-1), fmt.Sprintf("t%d", i/2)}
		}
		for k, v := range extra {
			t[k] = v
		}
		if format == "json" {
			if i > 0 {
				b.WriteString(",\n")
			}
			j, _ := json.Marshal(t)
			b.Write(j)
			continue
		}
		b.WriteString("[[task]]\n")
		for _, k := range []string{"id", "prompt", "tool", "timeout", "colour"} {
			if v, ok := t[k]; ok {
				fmt.Fprintf(&b, "%s = %q\n", k, v)
			}
		}
		if d, ok := t["depends_on"].([]string); ok {
			fmt.Fprintf(&b, "depends_on = [%q, %q]\n", d[0], d[1])
		}
		b.WriteString("\n")
	}
	if format == "json" {
		b.WriteString("\n]}\n")
	}
	return []byte(b.String())
}

// BenchmarkParse parses and checks a batch file of 20,000 tasks, in each
// format, good and refused (an unknown key in every task). Target: at
// most 1 s an operation.
func BenchmarkParse(b *testing.B) {
	for _, format := range []string{"toml", "json"} {
		for _, bad := range []bool{false, true} {
			var extra map[string]string
			name := format
			if bad {
				extra, name = map[string]string{"colour": "red"}, format+"/unknown-keys"
			}
			data := bigBatch(format, bigTasks, extra)
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				dir := b.TempDir()
				cpu := proc.SelfCPU()
				for range b.N {
					tasks, err := Parse("big."+format, dir, data)
					if bad != (err != nil) || (!bad && len(tasks) != bigTasks) {
						b.Fatalf("%d tasks, error %v", len(tasks), err)
					}
				}
				b.ReportMetric(float64(proc.SelfCPU()-cpu)/1e6/float64(b.N), "cpu-ms/op")
			})
		}
	}
}
