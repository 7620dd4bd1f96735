package session

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/csa-dev/csa/internal/fsutil"
)

// Summary is what listings need of a state: small, and cached.
type Summary struct {
	ID          string
	Tool        string
	Model       string
	Status      Status
	ProjectRoot string
	Depth       int
	ParentID    string
	CreatedAt   time.Time
	StartedAt   time.Time
	EndedAt     time.Time
	ExitCode    *int
	Reason      string
	Interactive bool // runs in a tmux pane (csa run -i)
	// Change is the branch of a worktree run and its change's size.
	Change *Change
	// Usage is the tokens it reported and ProviderModel the model it said
	// it used, for its cost.
	Usage         *Usage
	ProviderModel string
}

// Change is what listings show of a worktree run (Workspace).
type Change struct {
	Branch                       string
	Recorded                     bool
	Files, Insertions, Deletions int
}

// Summarize extracts the listing fields of a state.
func (st *State) Summarize() Summary {
	return Summary{ID: st.ID, Tool: st.Tool, Model: st.Model, Status: st.Status, ProjectRoot: st.ProjectRoot,
		Depth: st.Depth, ParentID: st.ParentID, CreatedAt: st.CreatedAt, StartedAt: st.StartedAt,
		EndedAt: st.EndedAt, ExitCode: st.ExitCode, Reason: st.Reason, Interactive: st.Interactive != nil,
		Change: st.Workspace.change(), Usage: st.Usage, ProviderModel: st.ProviderModel}
}

func (ws *Workspace) change() *Change {
	if ws == nil {
		return nil
	}
	return &Change{Branch: ws.Branch, Recorded: ws.Recorded, Files: ws.Files, Insertions: ws.Insertions, Deletions: ws.Deletions}
}

// ErrStarting marks a session whose supervisor holds its lock but has not
// written its first state yet: not broken, just not listable for a moment.
var ErrStarting = errors.New("session is starting")

// SummaryEntry is one listed session: its summary, or why it could not be
// read.
type SummaryEntry struct {
	ID      string
	Summary *Summary
	Err     error
}

// summaryCache maps a session to its summary and the identity (size and
// modification time) of the state file it was taken from.
type summaryCache map[string]cachedSummary

type cachedSummary struct {
	Ino, Size, ModNano int64
	Summary            Summary
}

// identity is what changes whenever a state file is replaced: every save
// renames a new inode over it.
func identity(fi os.FileInfo) (ino, size, mod int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = int64(st.Ino)
	}
	return ino, fi.Size(), fi.ModTime().UnixNano()
}

// cacheFile lives beside the sessions directory; it is only a cache: the
// state files stay the truth, and a stale or broken cache is rebuilt.
func (s *Store) cacheFile() string { return filepath.Join(filepath.Dir(s.dir), "summaries.cache") }

// Summaries lists every session's summary. A state file whose size and
// modification time match the cache is not decoded again, which keeps a
// listing of tens of thousands of sessions fast.
func (s *Store) Summaries() ([]SummaryEntry, error) {
	ids, err := s.IDs()
	if err != nil {
		return nil, err
	}
	cache := s.loadCache()
	out := make([]SummaryEntry, len(ids))
	fresh := make([]*cachedSummary, len(ids))
	workers := runtime.GOMAXPROCS(0)
	if len(ids) < 64 {
		workers = 1
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(ids); i += workers {
				out[i], fresh[i] = s.summarize(ids[i], cache)
			}
		}(w)
	}
	wg.Wait()
	changed := len(cache) != len(ids)
	next := make(summaryCache, len(ids))
	for i, id := range ids {
		if fresh[i] != nil {
			if old, ok := cache[id]; !ok || old != *fresh[i] {
				changed = true
			}
			next[id] = *fresh[i]
		}
	}
	if changed {
		s.saveCache(next)
	}
	return out, nil
}

func (s *Store) summarize(id string, cache summaryCache) (SummaryEntry, *cachedSummary) {
	fi, err := os.Stat(s.Path(id, StateFile))
	var ino, size, mod int64
	if err == nil {
		ino, size, mod = identity(fi)
		if c, ok := cache[id]; ok && c.Ino == ino && c.Size == size && c.ModNano == mod {
			sum := c.Summary
			return SummaryEntry{ID: id, Summary: &sum}, &c
		}
	}
	st, err := s.Load(id)
	if err != nil {
		if errors.Is(err, ErrStateMissing) && s.SupervisorAlive(id) {
			return SummaryEntry{ID: id, Err: ErrStarting}, nil
		}
		return SummaryEntry{ID: id, Err: err}, nil
	}
	sum := st.Summarize()
	e := SummaryEntry{ID: id, Summary: &sum}
	if fi == nil || st.Status == Pending || st.Status == Running {
		// Live states change under our feet; they are cheap to re-read.
		return e, nil
	}
	return e, &cachedSummary{Ino: ino, Size: size, ModNano: mod, Summary: sum}
}

func (s *Store) loadCache() summaryCache {
	b, err := os.ReadFile(s.cacheFile())
	if err != nil {
		return summaryCache{}
	}
	c, ok := decodeCache(b)
	if !ok {
		return summaryCache{}
	}
	return c
}

func (s *Store) saveCache(c summaryCache) {
	fsutil.WriteFileReplace(s.cacheFile(), encodeCache(c))
}

// The cache format is a version byte, then per entry: the three identity
// numbers and the summary's fields, strings length-prefixed, numbers as
// varints, times as Unix nanoseconds (0 for none). Hand-rolled: gob would
// cost every csa start its package initialisation.
const cacheVersion = 5

func encodeCache(c summaryCache) []byte {
	b := []byte{cacheVersion}
	for _, e := range c {
		sm := &e.Summary
		b = binary.AppendVarint(b, e.Ino)
		b = binary.AppendVarint(b, e.Size)
		b = binary.AppendVarint(b, e.ModNano)
		for _, str := range []string{sm.ID, sm.Tool, sm.Model, string(sm.Status), sm.ProjectRoot, sm.ParentID, sm.Reason, sm.ProviderModel} {
			b = binary.AppendUvarint(b, uint64(len(str)))
			b = append(b, str...)
		}
		b = binary.AppendVarint(b, int64(sm.Depth))
		for _, t := range []time.Time{sm.CreatedAt, sm.StartedAt, sm.EndedAt} {
			b = binary.AppendVarint(b, unixNano(t))
		}
		// Flags: 1 an exit code follows, 2 interactive, 4 a change
		// follows, 8 it is recorded, 16 usage follows.
		var flags byte
		if sm.ExitCode != nil {
			flags |= 1
		}
		if sm.Interactive {
			flags |= 2
		}
		if ch := sm.Change; ch != nil {
			flags |= 4
			if ch.Recorded {
				flags |= 8
			}
		}
		if sm.Usage != nil {
			flags |= 16
		}
		b = append(b, flags)
		if sm.ExitCode != nil {
			b = binary.AppendVarint(b, int64(*sm.ExitCode))
		}
		if ch := sm.Change; ch != nil {
			b = binary.AppendUvarint(b, uint64(len(ch.Branch)))
			b = append(b, ch.Branch...)
			for _, n := range []int{ch.Files, ch.Insertions, ch.Deletions} {
				b = binary.AppendVarint(b, int64(n))
			}
		}
		if u := sm.Usage; u != nil {
			for _, n := range []int64{u.InputTokens, u.OutputTokens, u.CachedTokens, u.CacheWriteTokens} {
				b = binary.AppendVarint(b, n)
			}
		}
	}
	return b
}

func decodeCache(b []byte) (summaryCache, bool) {
	if len(b) == 0 || b[0] != cacheVersion {
		return nil, false
	}
	d := cacheDecoder{b: b[1:], ok: true}
	c := summaryCache{}
	for len(d.b) > 0 && d.ok {
		var e cachedSummary
		sm := &e.Summary
		e.Ino, e.Size, e.ModNano = d.varint(), d.varint(), d.varint()
		var status string
		for _, p := range []*string{&sm.ID, &sm.Tool, &sm.Model, &status, &sm.ProjectRoot, &sm.ParentID, &sm.Reason, &sm.ProviderModel} {
			*p = d.str()
		}
		sm.Status = Status(status)
		sm.Depth = int(d.varint())
		for _, p := range []*time.Time{&sm.CreatedAt, &sm.StartedAt, &sm.EndedAt} {
			if n := d.varint(); n != 0 {
				*p = time.Unix(0, n).UTC()
			}
		}
		flags := d.byte()
		if flags&1 != 0 {
			code := int(d.varint())
			sm.ExitCode = &code
		}
		sm.Interactive = flags&2 != 0
		if flags&4 != 0 {
			ch := &Change{Branch: d.str(), Recorded: flags&8 != 0}
			ch.Files, ch.Insertions, ch.Deletions = int(d.varint()), int(d.varint()), int(d.varint())
			sm.Change = ch
		}
		if flags&16 != 0 {
			sm.Usage = &Usage{InputTokens: d.varint(), OutputTokens: d.varint(), CachedTokens: d.varint(), CacheWriteTokens: d.varint()}
		}
		c[sm.ID] = e
	}
	return c, d.ok
}

type cacheDecoder struct {
	b  []byte
	ok bool
}

func (d *cacheDecoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.ok, d.b = false, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *cacheDecoder) str() string {
	l, n := binary.Uvarint(d.b)
	if n <= 0 || uint64(len(d.b)-n) < l {
		d.ok, d.b = false, nil
		return ""
	}
	s := string(d.b[n : n+int(l)])
	d.b = d.b[n+int(l):]
	return s
}

func (d *cacheDecoder) byte() byte {
	if len(d.b) == 0 {
		d.ok = false
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
