package resource_test

import (
	"bytes"
	"errors"
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

	"github.com/csa-dev/csa/internal/lock"
	"github.com/csa-dev/csa/internal/resource"
)

// statsHelperEnv makes the re-executed test binary record one usage
// statistic (see TestStatsHelperProcess) instead of running tests.
const statsHelperEnv = "CSA_RESOURCE_STATS_HELPER"

// TestStatsHelperProcess is not a test: in a re-executed test binary with
// statsHelperEnv set to "PATH TOOL MB", it waits for its stdin to close
// (so that all writers start together) and records MB for TOOL.
func TestStatsHelperProcess(t *testing.T) {
	args := os.Getenv(statsHelperEnv)
	if args == "" {
		t.Skip("helper process for the statistics tests")
	}
	f := strings.Fields(args)
	mb, _ := strconv.ParseInt(f[2], 10, 64)
	io.Copy(io.Discard, os.Stdin)
	warning, err := resource.OpenStats(f[0]).WithLockTimeout(time.Minute).Record(f[1], mb)
	if err != nil || warning != "" {
		fmt.Printf("error: %v; warning %q\n", err, warning)
		os.Exit(1)
	}
	os.Exit(0)
}

func statsHistory(t *testing.T, s *resource.Stats, tool string) []int64 {
	t.Helper()
	h, warning, err := s.History(tool)
	if err != nil {
		t.Fatalf("History(%s): %v", tool, err)
	}
	if warning != "" {
		t.Errorf("History(%s) warned: %s", tool, warning)
	}
	return h
}

func statsRecord(t *testing.T, s *resource.Stats, tool string, mb int64) {
	t.Helper()
	warning, err := s.Record(tool, mb)
	if err != nil {
		t.Fatalf("Record(%s, %d): %v", tool, mb, err)
	}
	if warning != "" {
		t.Errorf("Record(%s, %d) warned: %s", tool, mb, warning)
	}
}

func TestStatsRoundTripAndWindow(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "project")
	path := filepath.Join(dir, "usage_stats.toml")
	s := resource.OpenStats(path)
	if h := statsHistory(t, s, "codex"); len(h) != 0 {
		t.Errorf("History before any record = %v", h)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("History created the file: %v", err)
	}

	var want []int64
	for i := int64(1); i <= 25; i++ {
		statsRecord(t, s, "codex", 1000+i)
		want = append(want, 1000+i)
	}
	statsRecord(t, s, "claude-code", 2048)
	want = want[len(want)-resource.HistoryWindow:] // the oldest five dropped
	// A fresh Stats reads what the first one wrote.
	again := resource.OpenStats(path)
	if h := statsHistory(t, again, "codex"); !slices.Equal(h, want) {
		t.Errorf("codex history = %v, want %v", h, want)
	}
	if h := statsHistory(t, again, "claude-code"); !slices.Equal(h, []int64{2048}) {
		t.Errorf("claude-code history = %v, want [2048]", h)
	}
	if h := statsHistory(t, again, "opencode"); len(h) != 0 {
		t.Errorf("opencode history = %v, want none", h)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The first record created the file; later ones went to its journal.
	if !bytes.HasPrefix(data, []byte("[history]\n")) || !bytes.Contains(data, []byte("codex = [1001]\n")) {
		t.Errorf("file content:\n%s\nwant a [history] table with one line per tool", data)
	}
	for _, p := range []string{path, path + ".lock", path + ".log"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode().Perm(); m != 0o600 {
			t.Errorf("%s mode = %v, want 0600", filepath.Base(p), m)
		}
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("state dir created as %v, %v; want mode 0700", fi, err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 {
		t.Errorf("state dir holds %d entries, want the file, its lock and its journal (no temp files)", len(ents))
	}
}

func TestStatsRejectsBadRecords(t *testing.T) {
	s := resource.OpenStats(filepath.Join(t.TempDir(), "usage_stats.toml"))
	for _, mb := range []int64{0, -5} {
		if _, err := s.Record("codex", mb); err == nil {
			t.Errorf("Record(codex, %d) succeeded", mb)
		}
	}
	if _, err := s.Record("", 100); err == nil {
		t.Error("Record with no tool succeeded")
	}
	if _, _, err := s.History(""); err == nil {
		t.Error("History with no tool succeeded")
	}
	if h := statsHistory(t, s, "codex"); len(h) != 0 {
		t.Errorf("history after rejected records = %v", h)
	}
}

func TestStatsDamagedFileRegenerated(t *testing.T) {
	good := "[history]\nclaude-code = [4000, 4100]\ncodex = [2048, 2304, 2176]\nopencode = [1500]\n"
	tests := []struct {
		name    string
		content string
		salvage map[string][]int64 // what History still finds
	}{
		{"truncated mid-line", good[:strings.Index(good, "2176")+2], map[string][]int64{"claude-code": {4000, 4100}}},
		{"truncated to nothing", "", nil},
		{"garbage", "\x00\xff\x13 not toml at all [[[ = =\n", nil},
		{"wrong types", "[history]\ncodex = \"lots\"\nopencode = [1500]\n", map[string][]int64{"opencode": {1500}}},
		{"no history table", "[other]\nx = 1\n", nil},
		{"non-positive records", "[history]\ncodex = [0, 2048, -1]\n", map[string][]int64{"codex": {2048}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "usage_stats.toml")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			s := resource.OpenStats(path)
			for _, tool := range []string{"claude-code", "codex", "opencode"} {
				h, warning, err := s.History(tool)
				if err != nil {
					t.Fatalf("History(%s) = %v; damage must not be an error", tool, err)
				}
				if !strings.Contains(warning, "damaged") || !strings.Contains(warning, path) {
					t.Errorf("History(%s) warning = %q; want it to name the damaged file", tool, warning)
				}
				if !slices.Equal(h, tt.salvage[tool]) {
					t.Errorf("History(%s) = %v, want the salvaged %v", tool, h, tt.salvage[tool])
				}
			}

			warning, err := s.Record("gemini-cli", 1024)
			if err != nil {
				t.Fatalf("Record on a damaged file = %v; want it regenerated", err)
			}
			if !strings.Contains(warning, "regenerated") {
				t.Errorf("Record warning = %q; want it to say the file was regenerated", warning)
			}
			// The file is good again: no warning, salvage kept, new record in.
			for tool, want := range tt.salvage {
				if h := statsHistory(t, s, tool); !slices.Equal(h, want) {
					t.Errorf("after Record, %s = %v, want %v", tool, h, want)
				}
			}
			if h := statsHistory(t, s, "gemini-cli"); !slices.Equal(h, []int64{1024}) {
				t.Errorf("after Record, gemini-cli = %v, want [1024]", h)
			}
			statsRecord(t, s, "gemini-cli", 1100)
		})
	}
}

func TestStatsEmptyHistoryTableIsNoDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage_stats.toml")
	for _, content := range []string{"[history]\n", "[history]\ncodex = []\n"} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if h := statsHistory(t, resource.OpenStats(path), "codex"); len(h) != 0 {
			t.Errorf("history of %q = %v, want none", content, h)
		}
	}
}

func TestStatsOverlongHistoryTrimmed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage_stats.toml")
	var vals []string
	for i := 1; i <= 30; i++ {
		vals = append(vals, strconv.Itoa(i))
	}
	content := "[history]\ncodex = [" + strings.Join(vals, ", ") + "]\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	s := resource.OpenStats(path)
	h := statsHistory(t, s, "codex")
	if len(h) != resource.HistoryWindow || h[0] != 11 || h[len(h)-1] != 30 {
		t.Errorf("history of a 30-record file = %v, want 11..30", h)
	}
	statsRecord(t, s, "codex", 31)
	if h := statsHistory(t, s, "codex"); len(h) != resource.HistoryWindow || h[0] != 12 || h[len(h)-1] != 31 {
		t.Errorf("history after Record = %v, want 12..31", h)
	}
}

func TestStatsLockWaitBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage_stats.toml")
	s := resource.OpenStats(path).WithLockTimeout(100 * time.Millisecond)
	statsRecord(t, s, "codex", 100)
	// flock excludes other open files in this process too, so this stands
	// in for a writer that hangs while holding the lock.
	h, err := lock.Acquire(path + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Record("codex", 200)
	if !errors.Is(err, lock.ErrTimeout) {
		t.Errorf("Record while the lock is held = %v; want a lock timeout", err)
	}
	// Readers do not take the lock.
	if got := statsHistory(t, s, "codex"); !slices.Equal(got, []int64{100}) {
		t.Errorf("History while the lock is held = %v, want [100]", got)
	}
	h.Release()
	statsRecord(t, s, "codex", 300)
	if got := statsHistory(t, s, "codex"); !slices.Equal(got, []int64{100, 300}) {
		t.Errorf("history = %v, want [100 300]", got)
	}
}

func TestStatsConcurrentProcessesLoseNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 50 processes")
	}
	path := filepath.Join(t.TempDir(), "usage_stats.toml")
	tools := []string{"claude-code", "codex", "opencode", "gemini-cli", "other"}
	const writers = 50 // 5 tools x 10 records
	type proc struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		out   bytes.Buffer
	}
	var procs []*proc
	want := map[string][]int64{}
	for i := range writers {
		tool, mb := tools[i%len(tools)], int64(1000+i)
		want[tool] = append(want[tool], mb)
		p := &proc{cmd: exec.Command(os.Args[0], "-test.run=^TestStatsHelperProcess$")}
		p.cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %d", statsHelperEnv, path, tool, mb),
			"GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
		p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
		stdin, err := p.cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		p.stdin = stdin
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.cmd.Process.Kill() })
		procs = append(procs, p)
	}
	for _, p := range procs { // go
		p.stdin.Close()
	}
	done := make(chan error, writers)
	for _, p := range procs {
		go func() {
			err := p.cmd.Wait()
			if err != nil {
				err = fmt.Errorf("writer: %v: %s", err, p.out.String())
			}
			done <- err
		}()
	}
	timeout := time.After(3 * time.Minute)
	for range writers {
		select {
		case err := <-done:
			if err != nil {
				t.Error(err)
			}
		case <-timeout:
			t.Fatal("writers did not finish")
		}
	}
	s := resource.OpenStats(path)
	for _, tool := range tools {
		got := slices.Sorted(slices.Values(statsHistory(t, s, tool)))
		if !slices.Equal(got, want[tool]) {
			t.Errorf("%s: %d records %v, want all %d: %v", tool, len(got), got, len(want[tool]), want[tool])
		}
	}
}

// TestStatsJournalMerged: past the journal's size limit its records move
// into the file and the journal starts again, losing nothing.
func TestStatsJournalMerged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage_stats.toml")
	s := resource.OpenStats(path)
	var want []int64
	for i := int64(1); i <= 2000; i++ { // well past 16 KiB of journal
		statsRecord(t, s, "codex", i)
		want = append(want, i)
	}
	want = want[len(want)-resource.HistoryWindow:]
	if h := statsHistory(t, s, "codex"); !slices.Equal(h, want) {
		t.Fatalf("history = %v, want %v", h, want)
	}
	if fi, err := os.Stat(path + ".log"); err == nil && fi.Size() >= 16<<10 {
		t.Errorf("journal never merged: %d bytes", fi.Size())
	}
	data, _ := os.ReadFile(path)
	if bytes.Contains(data, []byte("codex = [1, ")) {
		t.Errorf("the file was never rewritten: %s", data)
	}
}
