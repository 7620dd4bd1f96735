// Package bench holds csa's end-to-end performance benchmarks: the overhead
// of `csa run` over the bare agent program, `csa ps --json` and id-prefix
// resolution over 10,000 sessions, and the memory of the supervising csa.
//
// The benchmarks build csa and the fake agent into a temporary directory and
// run the real binaries; that setup happens only when -bench is given, so a
// plain `go test ./...` stays fast. Run everything with bench/run.sh; the
// figures and their meaning are in docs/performance.md.
package bench
