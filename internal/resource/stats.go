package resource

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/lock"
)

// HistoryWindow is how many peak-memory records are kept per tool; older
// ones are dropped first.
const HistoryWindow = 20

// statsLockTimeout bounds how long Record waits for another writer.
const statsLockTimeout = 5 * time.Second

// Stats is the usage-statistics file of one project: the last
// HistoryWindow peak-memory records (MB) of each tool, as
//
//	[history]
//	codex = [2048, 2304, 2176]
//
// A record is appended to a journal beside it (path+".log", one
// "tool MB" line) under a shared flock on path+".lock": a run ends with one
// small append, not a rewrite (new files cost the most on the start-up
// path). When the journal grows past statsCompactAt, or the file is
// found damaged, the writer takes the lock exclusively, merges the journal
// into the file, replaces it atomically and removes the journal, so
// concurrent runs lose no record. Readers take the lock shared. A truncated
// or corrupt file is not an error that stops a run: whatever can be
// salvaged is kept, a warning is returned and the file is rewritten.
type Stats struct {
	path        string
	lockTimeout time.Duration
}

// statsFile is the on-disk form.
type statsFile struct {
	History map[string][]int64 `toml:"history"`
}

// OpenStats returns the statistics kept at path (usually usage_stats.toml
// in the project's state directory). Nothing is read or created until
// History or Record.
func OpenStats(path string) *Stats {
	return &Stats{path: path, lockTimeout: statsLockTimeout}
}

// WithLockTimeout sets how long Record waits for the lock (default 5 s).
func (s *Stats) WithLockTimeout(d time.Duration) *Stats {
	s.lockTimeout = d
	return s
}

// Path is the statistics file.
func (s *Stats) Path() string { return s.path }

// statsCompactAt is the journal size that triggers a merge into the file.
const statsCompactAt = 4 << 10

func (s *Stats) journal() string { return s.path + ".log" }

// History returns tool's records, oldest first. A missing file is an empty
// history; a damaged one yields what could be salvaged and a warning (the
// file is rewritten by the next Record, not here).
func (s *Stats) History(tool string) (history []int64, warning string, err error) {
	if tool == "" {
		return nil, "", errors.New("usage statistics: empty tool name")
	}
	// No lock: a reader racing a merge may count the merged records twice
	// for a moment, which an estimate can bear.
	all, warning, err := s.read()
	if err != nil {
		return nil, "", err
	}
	return all[tool], warning, nil
}

// Record appends peakMB to tool's history, dropping the oldest records
// beyond HistoryWindow. It waits at most the lock timeout for other
// writers. If the file was damaged it is regenerated and the warning says
// so.
func (s *Stats) Record(tool string, peakMB int64) (warning string, err error) {
	if tool == "" {
		return "", errors.New("record usage: empty tool name")
	}
	if peakMB <= 0 {
		return "", fmt.Errorf("record usage of %s: peak %d MB is not a measurement", tool, peakMB)
	}
	if err := fsutil.MkdirPrivate(filepath.Dir(s.path)); err != nil {
		return "", fmt.Errorf("record usage of %s: %w", tool, err)
	}
	l := lock.New(s.path + ".lock")
	if err := l.LockSharedTimeout(context.Background(), s.lockTimeout); err != nil {
		return "", fmt.Errorf("record usage of %s: usage statistics busy: %w", tool, err)
	}
	_, warning, err = s.readFile()
	if err != nil {
		l.Unlock()
		return "", fmt.Errorf("record usage of %s: %w", tool, err)
	}
	size, err := s.append(tool, peakMB)
	l.Unlock()
	if err != nil {
		return warning, fmt.Errorf("record usage of %s: %w", tool, err)
	}
	if _, serr := os.Stat(s.path); warning != "" || size >= statsCompactAt || serr != nil {
		// The first record of a project creates the file; damage and a
		// long journal are merged away.
		if err := s.compact(); err != nil {
			return warning, fmt.Errorf("record usage of %s: %w", tool, err)
		}
	}
	return warning, nil
}

// append adds one record to the journal and returns the journal's size.
func (s *Stats) append(tool string, peakMB int64) (int64, error) {
	f, err := os.OpenFile(s.journal(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%s %d\n", tool, peakMB); err != nil {
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// compact merges the journal into the file under the exclusive lock.
func (s *Stats) compact() error {
	l := lock.New(s.path + ".lock")
	if err := l.LockTimeout(context.Background(), s.lockTimeout); err != nil {
		return fmt.Errorf("usage statistics busy: %w", err)
	}
	defer l.Unlock()
	all, _, err := s.read()
	if err != nil {
		return err
	}
	data, err := toml.Marshal(statsFile{History: all})
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	if err := fsutil.WriteFileReplace(s.path, data); err != nil {
		return err
	}
	if err := os.Remove(s.journal()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// read loads every tool's history, the file's and the journal's. Only I/O
// failures other than a missing file are errors; damage is repaired in
// memory and reported as a warning.
func (s *Stats) read() (map[string][]int64, string, error) {
	h, warning, err := s.readFile()
	if err != nil {
		return nil, "", err
	}
	if bad := s.readJournal(h); bad > 0 && warning == "" {
		warning = fmt.Sprintf("usage statistics journal %s had %d malformed lines; they were dropped", s.journal(), bad)
	}
	return h, warning, nil
}

// readFile loads the file alone (see read).
func (s *Stats) readFile() (map[string][]int64, string, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string][]int64{}, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("usage statistics: %w", err)
	}
	var f statsFile
	var damage string
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		damage = "empty (truncated)"
	default:
		if err := toml.Unmarshal(data, &f); err != nil {
			damage = statsFirstLine(err.Error())
			f.History = statsSalvage(data)
		} else if f.History == nil && !statsHasHistoryTable(data) {
			damage = "no [history] table"
		}
	}
	if f.History == nil {
		f.History = map[string][]int64{}
	}
	dropped := 0
	for tool, h := range f.History {
		good := h[:0:0]
		for _, v := range h {
			if v > 0 {
				good = append(good, v)
			} else {
				dropped++
			}
		}
		f.History[tool] = statsTrim(good)
	}
	if dropped > 0 && damage == "" {
		damage = fmt.Sprintf("%d non-positive records", dropped)
	}
	if damage == "" {
		return f.History, "", nil
	}
	n := 0
	for _, h := range f.History {
		n += len(h)
	}
	return f.History, fmt.Sprintf("usage statistics %s were damaged (%s); regenerated keeping %d records of %d tools",
		s.path, damage, n, len(f.History)), nil
}

// readJournal appends the journal's records to h, trimming each tool to
// the window, and returns how many lines it could not read.
func (s *Stats) readJournal(h map[string][]int64) (bad int) {
	data, err := os.ReadFile(s.journal())
	if err != nil {
		return 0
	}
	lines := strings.Split(string(data), "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	for _, line := range lines {
		tool, num, ok := strings.Cut(line, " ")
		v, err := strconv.ParseInt(num, 10, 64)
		if !ok || tool == "" || err != nil || v <= 0 {
			bad++
			continue
		}
		h[tool] = append(h[tool], v)
	}
	for tool, v := range h {
		h[tool] = statsTrim(v)
	}
	return bad
}

// statsSalvage keeps every line of the [history] table that still parses
// on its own (the encoder writes one tool per line), so a file cut off in
// the middle loses only the tool it was cut in.
func statsSalvage(data []byte) map[string][]int64 {
	out := map[string][]int64{}
	inHistory := false
	for _, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") && !strings.Contains(t, "=") {
			inHistory = t == "[history]"
			continue
		}
		if !inHistory || t == "" {
			continue
		}
		var m map[string][]int64
		if toml.Unmarshal([]byte(t), &m) != nil {
			continue
		}
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// statsHasHistoryTable tells an empty [history] table (fine) from none.
func statsHasHistoryTable(data []byte) bool {
	var raw map[string]any
	if toml.Unmarshal(data, &raw) != nil {
		return false
	}
	_, ok := raw["history"]
	return ok
}

// statsTrim keeps the newest HistoryWindow records.
func statsTrim(h []int64) []int64 {
	if len(h) > HistoryWindow {
		return append([]int64(nil), h[len(h)-HistoryWindow:]...)
	}
	return h
}

func statsFirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
