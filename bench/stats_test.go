package bench

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"
)

// quantile is the q-quantile (0..1) of ds by the nearest-rank method.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// dist summarises samples as median and p90 metrics named prefix-p50-ms and
// prefix-p90-ms.
func report(b *testing.B, prefix string, ds []time.Duration) (p50, p90 time.Duration) {
	p50, p90 = quantile(ds, 0.5), quantile(ds, 0.9)
	b.ReportMetric(ms(p50), prefix+"-p50-ms")
	b.ReportMetric(ms(p90), prefix+"-p90-ms")
	return p50, p90
}

// A row of the summary table printed at the end of a benchmark run. The
// framework calls a benchmark several times with growing b.N; the last call
// (the largest sample) wins.
type row struct {
	key, what, measured, limit, verdict string
}

var (
	summaryMu sync.Mutex
	summary   []row
)

func record(key, what, measured, limit, verdict string) {
	summaryMu.Lock()
	defer summaryMu.Unlock()
	r := row{key, what, measured, limit, verdict}
	for i := range summary {
		if summary[i].key == key {
			summary[i] = r
			return
		}
	}
	summary = append(summary, r)
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT MET"
}

// within judges a distribution against a limit: met if even the p90 is
// within it, met by the median only, or not met.
func within(p50, p90, limit time.Duration) string {
	switch {
	case p90 <= limit:
		return "met"
	case p50 <= limit:
		return "met (p50 only)"
	}
	return "NOT MET"
}

// printSummary writes the table to stdout and, if CSA_BENCH_RESULTS names a
// file, appends its rows there as tab-separated values (bench/run.sh joins
// the rows of several `go test` runs into one table).
func printSummary() {
	summaryMu.Lock()
	defer summaryMu.Unlock()
	if len(summary) == 0 {
		return
	}
	fmt.Println()
	writeTable(os.Stdout, summary)
	if p := os.Getenv("CSA_BENCH_RESULTS"); p != "" {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return
		}
		defer f.Close()
		for _, r := range summary {
			fmt.Fprintf(f, "%s\t%s\t%s\t%s\n", r.what, r.measured, r.limit, r.verdict)
		}
	}
}

func writeTable(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MEASURE\tRESULT\tTARGET\tVERDICT")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.what, r.measured, r.limit, r.verdict)
	}
	tw.Flush()
}

func TestQuantile(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(101-i)*time.Millisecond)
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 50 * time.Millisecond}, {0.9, 90 * time.Millisecond}, {1, 100 * time.Millisecond}, {0, time.Millisecond}} {
		if got := quantile(ds, c.q); got != c.want {
			t.Errorf("quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if quantile(nil, 0.5) != 0 {
		t.Error("quantile of nothing is not 0")
	}
}

func TestWriteTable(t *testing.T) {
	var b strings.Builder
	writeTable(&b, []row{{"k", "csa ps --json", "80.1 ms", "<= 100 ms", "met"}})
	if !strings.Contains(b.String(), "csa ps --json  80.1 ms") {
		t.Errorf("table:\n%s", b.String())
	}
}

// latencyVerdict judges a latency target on p90, saying when the worst
// sample went over it.
func latencyVerdict(p90, worst, limit time.Duration) string {
	switch {
	case p90 > limit:
		return "NOT MET"
	case worst > limit:
		return "met (p90; worst over)"
	}
	return "met"
}
