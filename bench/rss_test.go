package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/project"
	"github.com/csa-dev/csa/internal/session"
)

// rssLimit is target 3: the supervising csa stays under 20 MB resident.
const rssLimit = 20 << 20

// memSample is what /proc/<pid>/status says about a process's memory.
type memSample struct{ rss, hwm int64 } // bytes

func readMem(pid int) (memSample, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memSample{}, false
	}
	var m memSample
	ok := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			m.rss, ok = kb<<10, true
		case "VmHWM:":
			m.hwm = kb << 10
		}
	}
	return m, ok // a zombie has no Vm lines
}

// peakSampler calls next every interval until stopped, carrying the peak
// from one call to the next.
type peakSampler[T any] struct {
	stop chan struct{}
	done chan T
}

func samplePeak[T any](interval time.Duration, next func(peak T) T) *peakSampler[T] {
	s := &peakSampler[T]{stop: make(chan struct{}), done: make(chan T, 1)}
	go func() {
		var peak T
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			peak = next(peak)
			select {
			case <-s.stop:
				s.done <- peak
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *peakSampler[T]) peak() T { close(s.stop); return <-s.done }

// sample polls a process's memory every few milliseconds until stopped;
// VmHWM is the kernel's own high-water mark, so a peak between two samples
// is not missed, only growth in the very last interval.
func sample(pid int) *peakSampler[memSample] {
	return samplePeak(2*time.Millisecond, func(peak memSample) memSample {
		if m, ok := readMem(pid); ok {
			peak.rss, peak.hwm = max(peak.rss, m.rss), max(peak.hwm, m.hwm)
		}
		return peak
	})
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }

func storeOf(tb testing.TB, w *world) *session.Store { return projectStore(tb, w.projDir, w.stateDir) }

// projectStore opens the session store csa uses for the project at proj.
func projectStore(tb testing.TB, proj, stateDir string) *session.Store {
	root, err := project.FindRoot(proj)
	if err != nil {
		tb.Fatal(err)
	}
	st, err := session.Open(filepath.Join(stateDir, "projects", project.Slug(root), "sessions"))
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// recordedSessions lists the sessions recorded in st, in creation order,
// and fails unless there are want of them.
func recordedSessions(tb testing.TB, st *session.Store, want int) []session.Entry {
	ents, err := st.List()
	if err != nil {
		tb.Fatal(err)
	}
	if len(ents) != want {
		tb.Fatalf("%d sessions recorded, want %d", len(ents), want)
	}
	slices.SortFunc(ents, func(x, y session.Entry) int { return strings.Compare(x.ID, y.ID) }) // ULIDs: creation order
	return ents
}

// onlySession returns the one session of the store, removing nothing.
func onlySession(tb testing.TB, st *session.Store) *session.State {
	ids, err := st.IDs()
	if err != nil || len(ids) != 1 {
		tb.Fatalf("want one session, have %v (%v)", ids, err)
	}
	s, err := st.Load(ids[0])
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkSupervisorRSS is target 3: the resident memory of the csa
// process that supervises a run, for output floods and for a long run with
// steady output, in the foreground and detached.
func BenchmarkSupervisorRSS(b *testing.B) {
	const flood = 300_000_000
	b.Run("flood-300MB", func(b *testing.B) {
		w := newWorld(b, "rss-flood", "")
		st := storeOf(b, w)
		null := devNull(b)
		var peak memSample
		var el time.Duration
		for range b.N {
			c := w.command(b, null, csaBin, "run", "--tool", "codex", fmt.Sprintf("flood %d; echo done", flood))
			t0 := time.Now()
			if err := c.cmd.Start(); err != nil {
				b.Fatal(err)
			}
			s := sample(c.cmd.Process.Pid)
			err := c.cmd.Wait()
			el += time.Since(t0)
			p := s.peak()
			c.check(b, err)
			peak.rss, peak.hwm = max(peak.rss, p.rss), max(peak.hwm, p.hwm)
			ss := onlySession(b, st)
			if ss.Status != session.Completed || ss.OutputBytes < flood {
				b.Fatalf("session %s: %s, %d output bytes", ss.ID, ss.Status, ss.OutputBytes)
			}
			st.Remove(ss.ID) // 300 MB of log
		}
		rssResult(b, "rss-flood", fmt.Sprintf("csa run, agent floods %d MB to stdout (foreground)", flood/1_000_000), peak)
		// Throughput against the agent writing into a pipe that is only
		// drained, as csa's pump does: the agent's 100-byte writes into a
		// pipe are the bound, not csa.
		b.StopTimer()
		c := exec.Command(agentBin, fmt.Sprintf("flood %d", flood))
		out, err := c.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, out)
		if err := c.Wait(); err != nil || n != flood {
			b.Fatalf("fakeagent flood: %v, %d bytes", err, n)
		}
		base := float64(flood) / 1e6 / time.Since(t0).Seconds()
		csaRate := float64(flood) * float64(b.N) / 1e6 / el.Seconds()
		b.ReportMetric(csaRate, "csa-MB/s")
		b.ReportMetric(base, "pipe-only-MB/s")
		record("rss-flood-rate", "  throughput of that flood: csa vs agent into a bare pipe", fmt.Sprintf("%.0f MB/s vs %.0f MB/s", csaRate, base), "info", "info")
	})
	b.Run("flood-500MB-capped-log", func(b *testing.B) {
		// Past max_log_bytes the log stops growing but the stream is still
		// read and passed through: nothing may pile up in memory.
		w := newWorld(b, "rss-cap", "[output]\nmax_log_bytes = 10000000\n")
		st := storeOf(b, w)
		null := devNull(b)
		var peak memSample
		for range b.N {
			c := w.command(b, null, csaBin, "run", "--tool", "codex", "flood 500000000; echo done")
			if err := c.cmd.Start(); err != nil {
				b.Fatal(err)
			}
			s := sample(c.cmd.Process.Pid)
			err := c.cmd.Wait()
			p := s.peak()
			c.check(b, err)
			peak.rss, peak.hwm = max(peak.rss, p.rss), max(peak.hwm, p.hwm)
			ss := onlySession(b, st)
			if ss.Status != session.Completed || ss.OutputBytes < 500_000_000 || !ss.OutputTruncated {
				b.Fatalf("session %s: %d output bytes, truncated %v", ss.ID, ss.OutputBytes, ss.OutputTruncated)
			}
			st.Remove(ss.ID)
		}
		rssResult(b, "rss-cap", "csa run, agent floods 500 MB, log capped at 10 MB (foreground)", peak)
	})
	// The agent's answer itself is huge: the tool's own JSON lines, one
	// assistant message delta per line, from a script (the fake agent's
	// messages come from its prompt, so it cannot make a big answer from a
	// small prompt). Each adapter may keep some answer text; none may keep
	// it all.
	for _, tc := range []struct{ tool, init, line, end string }{
		{"gemini-cli", `{"type":"init","session_id":"s-1","model":"m"}`,
			`{"type":"message","role":"assistant","content":"` + strings.Repeat("y", 60) + `\n","delta":true}`,
			`{"type":"result","status":"success","stats":{"input_tokens":1,"output_tokens":1}}`},
		{"codex", `{"type":"thread.started","thread_id":"t-1"}`,
			`{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"` + strings.Repeat("y", 40) + `"}}`,
			`{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}`},
	} {
		const lines = 300_000
		b.Run("answer-30MB-"+tc.tool, func(b *testing.B) {
			script := filepath.Join(benchDir, "answer-"+tc.tool+".sh")
			body := fmt.Sprintf("#!/bin/sh\nprintf '%%s\\n' '%s'\nyes '%s' | head -n %d\nprintf '%%s\\n' '%s'\n", tc.init, tc.line, lines, tc.end)
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				b.Fatal(err)
			}
			w := newWorld(b, "rss-answer-"+tc.tool, fmt.Sprintf("[tools.%s]\npath = %q\n", tc.tool, script))
			st := storeOf(b, w)
			null := devNull(b)
			var peak memSample
			var el time.Duration
			var size, stateSize int64
			var resultSize int
			for range b.N {
				c := w.command(b, null, csaBin, "run", "--tool", tc.tool, "answer at length")
				t0 := time.Now()
				if err := c.cmd.Start(); err != nil {
					b.Fatal(err)
				}
				s := sample(c.cmd.Process.Pid)
				err := c.cmd.Wait()
				el += time.Since(t0)
				p := s.peak()
				c.check(b, err)
				peak.rss, peak.hwm = max(peak.rss, p.rss), max(peak.hwm, p.hwm)
				ss := onlySession(b, st)
				if ss.Status != session.Completed {
					b.Fatalf("session %s: %s %+v", ss.ID, ss.Status, ss.Failure)
				}
				size = ss.OutputBytes
				if fi, err := os.Stat(st.Path(ss.ID, session.StateFile)); err == nil {
					stateSize, resultSize = fi.Size(), len(ss.Result)
				}
				st.Remove(ss.ID)
			}
			rssResult(b, "rss-answer-"+tc.tool, fmt.Sprintf("csa run --tool %s, a %d MB answer in %dk JSON lines", tc.tool, size/1_000_000, lines/1000), peak)
			rate := float64(size) * float64(b.N) / 1e6 / el.Seconds()
			b.ReportMetric(rate, "MB/s")
			b.ReportMetric(float64(stateSize)/1e6, "state.toml-MB")
			record("rss-answer-state-"+tc.tool, "  its state.toml; throughput", fmt.Sprintf("%.2f MB (result %d bytes); %.0f MB/s", float64(stateSize)/1e6, resultSize, rate), "info", "info")
		})
	}
	b.Run("steady-detached", func(b *testing.B) {
		// About 3 s of output in bursts, supervised by the background csa
		// of `csa run -d`, whose pid is in the state file.
		w := newWorld(b, "rss-detached", "")
		st := storeOf(b, w)
		var steps []string
		for range 60 {
			steps = append(steps, "flood 1000000", "echo progress", "sleep 50ms")
		}
		script := strings.Join(steps, "; ")
		var peak memSample
		for range b.N {
			c := exec.Command(csaBin, "run", "-d", "--tool", "codex", script)
			c.Dir, c.Env = w.projDir, w.env
			out, err := c.Output()
			if err != nil {
				b.Fatalf("csa run -d: %v", err)
			}
			id := strings.TrimSpace(string(out))
			var sup int
			for deadline := time.Now().Add(5 * time.Second); sup == 0; {
				if s, err := st.Load(id); err == nil {
					sup = s.SupervisorPID
				}
				if time.Now().After(deadline) {
					b.Fatal("detached supervisor never recorded its pid")
				}
				time.Sleep(time.Millisecond)
			}
			s := sample(sup)
			var ss *session.State
			for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				if ss, err = st.Load(id); err == nil && ss.Status.Ended() && !st.SupervisorAlive(id) {
					break
				}
				if time.Now().After(deadline) {
					b.Fatal("detached run did not end")
				}
			}
			p := s.peak()
			peak.rss, peak.hwm = max(peak.rss, p.rss), max(peak.hwm, p.hwm)
			if ss.Status != session.Completed || ss.OutputBytes < 60_000_000 {
				b.Fatalf("session %s: %s, %d output bytes", ss.ID, ss.Status, ss.OutputBytes)
			}
			st.Remove(id)
		}
		rssResult(b, "rss-detached", "csa run -d, 60 MB in bursts over ~3.5 s (detached supervisor)", peak)
	})
	b.Run("sleep-foreground", func(b *testing.B) {
		// The floor: a supervisor with nothing to do for 2 s.
		w := newWorld(b, "rss-sleep", "")
		null := devNull(b)
		var peak memSample
		for range b.N {
			c := w.command(b, null, csaBin, "run", "--tool", "codex", "sleep 2s; echo done")
			if err := c.cmd.Start(); err != nil {
				b.Fatal(err)
			}
			s := sample(c.cmd.Process.Pid)
			err := c.cmd.Wait()
			p := s.peak()
			c.check(b, err)
			peak.rss, peak.hwm = max(peak.rss, p.rss), max(peak.hwm, p.hwm)
		}
		rssResult(b, "rss-sleep", "csa run, agent sleeps 2 s (foreground)", peak)
	})
}

func rssResult(b *testing.B, key, what string, peak memSample) {
	b.ReportMetric(mb(peak.hwm), "peak-MB")
	b.ReportMetric(mb(peak.rss), "max-sampled-rss-MB")
	record(key, what, fmt.Sprintf("peak VmHWM %.1f MB (max sampled VmRSS %.1f MB)", mb(peak.hwm), mb(peak.rss)),
		"< 20 MB", verdict(peak.hwm < rssLimit))
}
