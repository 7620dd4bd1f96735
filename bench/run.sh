#!/usr/bin/env bash
# Runs every csa performance benchmark and prints one table of the figures
# against the targets (see docs/performance.md). About 5-9 minutes on 2 cores
# (the real-agent benchmarks need `make agents` first).
#
#   bench/run.sh            # everything
#   bench/run.sh -quick     # fewer iterations (a smoke run, ~40 s)
#
# Scratch files go to a temporary directory under $CSA_BENCH_TMP, else
# $XDG_STATE_HOME, else ~/.local/state (where csa keeps its own state), and
# are removed at the end. CSA_BENCH_REV overrides the revision shown (for a
# tree exported without git). The Go benchmarks can also be run one by one:
#   go test -run '^$' -bench RunOverhead -benchtime 200x ./bench
set -euo pipefail

cd "$(dirname "$0")/.."

runs=200 # pairs of runs for target 1
ps=20    # csa ps invocations
rss=1    # runs of each memory scenario
if [[ "${1:-}" == "-quick" ]]; then
	runs=50 ps=5
fi

parent="${CSA_BENCH_TMP:-${XDG_STATE_HOME:-$HOME/.local/state}}"
mkdir -p "$parent"
export CSA_BENCH_DIR
CSA_BENCH_DIR="$(mktemp -d "$parent/csa-bench.XXXXXX")"
export CSA_BENCH_RESULTS="$CSA_BENCH_DIR/results.tsv"
trap 'rm -rf "$CSA_BENCH_DIR"' EXIT

# The machine's CPU contention (share of the last 60 s in which some task
# waited for a CPU): figures taken under heavy contention are not
# comparable with quiet ones.
pressure() { awk '/^some/ {sub("avg60=", "", $3); print $3 "%"}' /proc/pressure/cpu 2>/dev/null || echo "n/a"; }
pressure_start="$(pressure)"

# Build once: every `go test` below measures these binaries, even if the
# tree changes meanwhile.
rev="${CSA_BENCH_REV:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- ':!bench' 2>/dev/null || echo ' (modified tree)')}"
export CSA_BENCH_BIN="$CSA_BENCH_DIR/bin"
CGO_ENABLED=0 go build -o "$CSA_BENCH_BIN/" ./cmd/csa ./cmd/csa-agent ./cmd/csa-mcp ./cmd/csa-cluster ./cmd/csa-ui ./cmd/fakeagent # static, as make build

bench() { # pattern benchtime
	go test -run '^$' -count 1 -timeout 15m -bench "$1" -benchtime "$2" ./bench
}

bench 'RunOverhead|Startup' "${runs}x" # with CSA_BENCH_BASE=<an earlier csa>: both, in one run
bench 'KeeperSweep' 20x
bench 'PsJSON|PsTable|InspectPrefix|StoreList' "${ps}x"
bench 'StoreResolve|StoreIDs' 200x
bench 'SupervisorRSS' "${rss}x"
bench 'StatusAll' 20x # 50 interactive sessions in tmux
bench 'TopCPU' 1x    # csa top over 50 live sessions: 30 s of its CPU time
bench 'TopLatency' 20x # a state change to csa top's screen: ~20 s
bench 'AgentOverhead' 10x # the real programs (make agents), pairs of 0.3-5 s runs: ~4 min
bench 'MCPMemory|MCPLatency|MCPRouting' 1x # the MCP hub with npm servers (make mcp-servers): ~25 s
bench 'AgentStartLoaded' 100x # csa-agent's start with a Claude Code set-up beside the empty floor: ~10 s
bench 'AgentHooks|AgentMCPStart|AgentMCPCall|AgentFrontEnds' 10x # csa-agent's extension points (make mcp-servers): ~1.5 min
bench 'Failover' 5x       # a tier whose first model is each real program answering 429: ~2 min
bench 'WorkspaceCreate|RunWorktree' 8x # csa run -w's worktree vs git worktree add, 10,000 files and csa's own: ~10 min on disk
bench 'SandboxStart|SandboxTask' 40x # --isolate fs / fs,net vs none: a run's start, a 10-turn csa-agent task: ~1 min

fs="$(df -PT "$CSA_BENCH_DIR" | awk 'NR==2 {print $2 " on " $1}')"
echo
echo "== csa performance: $rev, csa binary $(du -h "$CSA_BENCH_BIN/csa" | cut -f1)," \
	"$(nproc) cores, Linux $(uname -r), $(go env GOVERSION), state on $fs," \
	"CPU pressure avg60 $pressure_start at start, $(pressure) at end =="
{
	printf 'MEASURE\tRESULT\tTARGET\tVERDICT\n'
	cat "$CSA_BENCH_RESULTS"
} | column -t -s $'\t'
