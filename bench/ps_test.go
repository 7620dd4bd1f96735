package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/project"
	"github.com/csa-dev/csa/internal/session"
)

// nSessions is the size of the project of target 2.
const nSessions = 10_000

// psData is one project holding nSessions recorded sessions.
type psData struct {
	w      *world
	store  *session.Store
	prefix string // an 8-character prefix that names exactly one session
}

var (
	psOnce sync.Once
	psSet  *psData
	psErr  error
)

// sessions10k writes the project once per benchmark process. It is reused
// across `go test` runs when CSA_BENCH_DIR is set and the marker exists.
func sessions10k(b *testing.B) *psData {
	b.Helper()
	psOnce.Do(func() { psSet, psErr = makeSessions(b, nSessions) })
	if psErr != nil {
		b.Fatal(psErr)
	}
	return psSet
}

func makeSessions(tb testing.TB, n int) (*psData, error) {
	base := filepath.Join(benchDir, fmt.Sprintf("ps%d", n))
	marker := filepath.Join(base, "complete")
	reuse := false
	if _, err := os.Stat(marker); err == nil {
		reuse = true
	}
	var w *world
	if reuse {
		w = &world{stateDir: filepath.Join(base, "state"), configDir: filepath.Join(base, "config"), projDir: filepath.Join(base, "proj")}
		w.env = benchEnv(w.stateDir, w.configDir)
		f, err := os.Create(filepath.Join(base, "stderr"))
		if err != nil {
			return nil, err
		}
		w.stderr = f
	} else {
		w = newWorldIn(tb, base, "")
	}
	root, err := project.FindRoot(w.projDir)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(w.stateDir, "projects", project.Slug(root))
	store, err := session.Open(filepath.Join(dir, "sessions"))
	if err != nil {
		return nil, err
	}
	if !reuse {
		t0 := time.Now()
		if err := os.WriteFile(filepath.Join(dir, cmdutil.ProjectMarker), []byte(root+"\n"), 0o600); err != nil {
			return nil, err
		}
		if err := writeSessions(store, root, n, time.Now()); err != nil {
			return nil, err
		}
		if err := os.WriteFile(marker, nil, 0o600); err != nil {
			return nil, err
		}
		fmt.Fprintf(os.Stderr, "bench: wrote %d sessions in %s\n", n, time.Since(t0).Round(time.Millisecond))
	}
	ids, err := store.IDs()
	if err != nil {
		return nil, err
	}
	if len(ids) != n {
		return nil, fmt.Errorf("%s holds %d sessions, want %d", store.Root(), len(ids), n)
	}
	d := &psData{w: w, store: store}
	// An 8-character prefix is about one second of creation time: take the
	// first one in the middle that is unique.
	for i := n / 2; i < n-1 && d.prefix == ""; i++ {
		p := ids[i][:8]
		if !strings.HasPrefix(ids[i-1], p) && !strings.HasPrefix(ids[i+1], p) {
			d.prefix = strings.ToLower(p) // ids are case-insensitive; make csa fold it
		}
	}
	if d.prefix == "" {
		return nil, fmt.Errorf("no unique 8-character prefix among %d ids", n)
	}
	return d, nil
}

// writeSessions records n ended sessions of a project, created over the
// seven days before now, through the session package itself. The mix is
// what a busy project would hold: mostly completed runs, some failures,
// timeouts, kills and crashes; about a third are sub-agents of an earlier
// session (depth 1..3); results are a few hundred bytes to the 16 KiB cap.
func writeSessions(store *session.Store, root string, n int, now time.Time) error {
	rng := rand.New(rand.NewPCG(42, 7))
	tools := []string{"codex", "claude-code", "gemini-cli", "opencode"}
	programs := map[string]string{"codex": "/usr/local/bin/codex", "claude-code": "/usr/local/bin/claude",
		"gemini-cli": "/usr/local/bin/gemini", "opencode": "/usr/local/bin/opencode"}
	words := strings.Fields("the change adds a test for the parser and fixes an off by one in the lexer " +
		"review found no blocking issue but the error message should name the file and line")
	text := func(n int) string {
		var sb strings.Builder
		for sb.Len() < n {
			sb.WriteString(words[rng.IntN(len(words))])
			sb.WriteByte(' ')
			if rng.IntN(12) == 0 {
				sb.WriteString("\n")
			}
		}
		return sb.String()[:n]
	}
	span := 7 * 24 * time.Hour
	start := now.Add(-span)
	states := make([]*session.State, n)
	for i := range n {
		created := start.Add(time.Duration(float64(span) * (float64(i) + rng.Float64()) / float64(n))).UTC()
		tool := tools[rng.IntN(len(tools))]
		prompt := text(40 + rng.IntN(400))
		shown := prompt
		if len(prompt) > 200 {
			shown = fmt.Sprintf("<prompt: %d bytes>", len(prompt))
		}
		args := map[string][]string{"codex": {"exec", "--json", "--skip-git-repo-check", shown},
			"claude-code": {"-p", "--output-format", "stream-json", "--verbose", shown},
			"gemini-cli":  {"--output-format", "stream-json", "-p", shown}, "opencode": {"run", "--format", "json", shown}}[tool]
		dur := time.Duration(2+rng.ExpFloat64()*120) * time.Second
		st := &session.State{
			ID: session.NewID(created), Tool: tool, Status: session.Completed, ProjectRoot: root, Cwd: root,
			CreatedAt: created, StartedAt: created.Add(3 * time.Millisecond), EndedAt: created.Add(dur),
			Program: programs[tool], Args: args, PromptBytes: len(prompt), PromptVia: "argv",
			TimeoutMS: 30 * 60 * 1000, GraceMS: 5000,
			SupervisorPID: 1000 + rng.IntN(60000), PID: 1000 + rng.IntN(60000), Turns: 1,
			OutputBytes: int64(200 + rng.IntN(200_000)),
		}
		st.PGID = st.PID
		st.ProviderSessionID = fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<16), rng.IntN(1<<16), rng.Uint64()&(1<<48-1))
		if rng.IntN(3) == 0 {
			st.Model = "gpt-5"
		}
		if rng.IntN(5) == 0 {
			st.Cwd = filepath.Join(root, "internal", "parser")
		}
		// A third are sub-agents of a recent session.
		if i > 0 && rng.IntN(3) == 0 {
			p := states[max(0, i-1-rng.IntN(min(i, 20)))]
			if p.Depth < 3 {
				st.ParentID, st.ParentTool, st.Depth = p.ID, p.Tool, p.Depth+1
			}
		}
		code := 0
		switch r := rng.IntN(100); {
		case r < 80:
			st.Reason = "exited with status 0"
			st.Usage = &session.Usage{InputTokens: int64(rng.IntN(200_000)), OutputTokens: int64(rng.IntN(20_000))}
			size := 100 + rng.IntN(3000)
			if rng.IntN(50) == 0 {
				size = 16 * 1024
			}
			st.Result = text(size)
		case r < 92:
			code = 1
			st.Status = session.Failed
			switch k := rng.IntN(10); {
			case k < 6:
				st.Failure = &session.Failure{Class: session.FailCrashed, Message: "error: " + text(60)}
			case k < 8:
				st.Failure = &session.Failure{Class: "rate_limited", Message: "429 Too Many Requests: rate limit reached for requests"}
			default:
				code = 0
				st.Failure = &session.Failure{Class: session.FailNoResult, Message: "the program exited 0 without an answer"}
			}
		case r < 95:
			code = 143
			st.Status, st.Signal = session.TimedOut, "SIGTERM"
			st.Failure = &session.Failure{Class: session.FailTimeout, Message: "timed out after 30m0s"}
		case r < 98:
			code = 143
			st.Status, st.Signal = session.Killed, "SIGTERM"
			st.Failure = &session.Failure{Class: session.FailKilled, Message: "killed by csa kill"}
		default:
			st.Status = session.Crashed
			st.Failure = &session.Failure{Class: session.FailCrashed, Message: fmt.Sprintf("the supervising csa (pid %d) died before the run ended", st.SupervisorPID)}
		}
		if st.Status != session.Crashed {
			st.ExitCode = &code
		}
		if st.Failure != nil {
			st.Reason = st.Failure.Message
		}
		states[i] = st
	}
	// fsync makes each Save cost a disk round trip: write from a few
	// goroutines.
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 4 {
				if err := store.MakeDir(states[i].ID); err != nil {
					errs <- err
					return
				}
				if err := store.Save(states[i]); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// processTimes runs a csa command b.N times and returns the wall times.
// Its stdout goes through a pipe the benchmark drains, as a script reading
// the answer would.
func processTimes(b *testing.B, w *world, args ...string) []time.Duration {
	run := func() time.Duration {
		c := exec.Command(csaBin, args...)
		c.Dir, c.Env, c.Stdout = w.projDir, w.env, io.Discard
		w.stderr.Truncate(0)
		w.stderr.Seek(0, 0)
		c.Stderr = w.stderr
		t0 := time.Now()
		err := c.Run()
		d := time.Since(t0)
		(&command{cmd: c, errOut: w.stderr}).check(b, err)
		if fi, _ := w.stderr.Stat(); fi != nil && fi.Size() > 0 {
			b.Fatalf("csa %s wrote to stderr", strings.Join(args, " "))
		}
		return d
	}
	for range 2 {
		run()
	}
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		ds = append(ds, run())
	}
	b.StopTimer()
	return ds
}

// BenchmarkPsJSON is target 2: `csa ps --json` over 10,000 sessions of one
// project, process start to exit, at most 100 ms.
func BenchmarkPsJSON(b *testing.B) {
	d := sessions10k(b)
	checkPsOutput(b, d)
	ds := processTimes(b, d.w, "ps", "--json")
	p50, p90 := report(b, "wall", ds)
	record("ps", "csa ps --json, 10,000 sessions (process)", fmt.Sprintf("p50 %.1f ms, p90 %.1f ms", ms(p50), ms(p90)),
		"<= 100 ms", within(p50, p90, 100*time.Millisecond))
}

// BenchmarkPsTable is the same listing as the human table.
func BenchmarkPsTable(b *testing.B) {
	d := sessions10k(b)
	ds := processTimes(b, d.w, "ps")
	p50, p90 := report(b, "wall", ds)
	record("ps-table", "csa ps (table), 10,000 sessions (process)", fmt.Sprintf("p50 %.1f ms, p90 %.1f ms", ms(p50), ms(p90)),
		"<= 100 ms", within(p50, p90, 100*time.Millisecond))
}

// checkPsOutput makes sure the listing is complete: a fast wrong answer
// must not pass.
func checkPsOutput(b *testing.B, d *psData) {
	c := exec.Command(csaBin, "ps", "--json")
	c.Dir, c.Env = d.w.projDir, d.w.env
	out, err := c.Output()
	if err != nil {
		b.Fatalf("csa ps --json: %v", err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(out, &rows); err != nil {
		b.Fatalf("csa ps --json: %v", err)
	}
	if len(rows) != nSessions {
		b.Fatalf("csa ps --json listed %d sessions, want %d", len(rows), nSessions)
	}
	b.ReportMetric(float64(len(out))/1e6, "json-MB")
}

// BenchmarkInspectPrefix is the end-to-end side of prefix resolution:
// `csa inspect --json <8-char lower-case prefix>` among 10,000 sessions.
func BenchmarkInspectPrefix(b *testing.B) {
	d := sessions10k(b)
	ds := processTimes(b, d.w, "inspect", "--json", d.prefix)
	p50, p90 := report(b, "wall", ds)
	record("inspect", "csa inspect <8-char prefix>, 10,000 sessions (process)", fmt.Sprintf("p50 %.1f ms, p90 %.1f ms", ms(p50), ms(p90)),
		"info", "info")
}

// loopTimes runs fn b.N times and returns each duration.
func loopTimes(b *testing.B, fn func() error) []time.Duration {
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if err := fn(); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
	}
	b.StopTimer()
	return ds
}

// BenchmarkStoreResolve is target 2's prefix resolution at the Go level:
// session.Store.Resolve of an 8-character prefix, at most 10 ms.
func BenchmarkStoreResolve(b *testing.B) {
	d := sessions10k(b)
	ds := loopTimes(b, func() error {
		id, err := d.store.Resolve(d.prefix)
		if err == nil && !strings.EqualFold(id[:8], d.prefix) {
			err = fmt.Errorf("resolved %s to %s", d.prefix, id)
		}
		return err
	})
	p50, p90 := report(b, "op", ds)
	record("resolve", "Store.Resolve(8-char prefix), 10,000 sessions", fmt.Sprintf("p50 %.2f ms, p90 %.2f ms", ms(p50), ms(p90)),
		"<= 10 ms", within(p50, p90, 10*time.Millisecond))
}

// BenchmarkStoreList is the loading half of `csa ps`: session.Store.List.
func BenchmarkStoreList(b *testing.B) {
	d := sessions10k(b)
	ds := loopTimes(b, func() error {
		ents, err := d.store.List()
		if err == nil && len(ents) != nSessions {
			err = fmt.Errorf("listed %d", len(ents))
		}
		for _, e := range ents {
			if e.Err != nil {
				return e.Err
			}
		}
		return err
	})
	p50, p90 := report(b, "op", ds)
	record("list", "Store.List, 10,000 sessions", fmt.Sprintf("p50 %.1f ms, p90 %.1f ms", ms(p50), ms(p90)), "info", "info")
}

// BenchmarkStoreIDs is the directory scan every prefix resolution does.
func BenchmarkStoreIDs(b *testing.B) {
	d := sessions10k(b)
	ds := loopTimes(b, func() error {
		_, err := d.store.IDs()
		return err
	})
	p50, p90 := report(b, "op", ds)
	record("ids", "Store.IDs, 10,000 sessions", fmt.Sprintf("p50 %.2f ms, p90 %.2f ms", ms(p50), ms(p90)), "info", "info")
}

// TestWriteSessions checks the generator on a small project: every record
// it writes is read back as written.
func TestWriteSessions(t *testing.T) {
	store, err := session.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := writeSessions(store, "/src/p", 40, time.Now()); err != nil {
		t.Fatal(err)
	}
	ents, err := store.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 40 {
		t.Fatalf("%d sessions, want 40", len(ents))
	}
	children := 0
	for i, e := range ents {
		if e.Err != nil {
			t.Fatal(e.Err)
		}
		if !e.State.Status.Ended() {
			t.Errorf("%s: state %s", e.ID, e.State.Status)
		}
		if i > 0 && e.State.CreatedAt.Before(ents[i-1].State.CreatedAt) {
			t.Errorf("%s: created before its predecessor", e.ID)
		}
		if e.State.ParentID != "" {
			children++
		}
	}
	if children == 0 {
		t.Error("no sub-agent sessions")
	}
}
