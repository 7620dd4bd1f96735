package tool

import (
	"fmt"
	"os"
	"sort"
	"sync"
	"time"
)

// FileState remembers the files an agent has read (or written), as they
// were then, so Edit refuses a file the model has not seen or that changed
// under it since.
type FileState struct {
	mu    sync.Mutex
	files map[string]seen
	clock uint64 // orders Records, for Recent
}

type seen struct {
	mod  time.Time
	size int64
	at   uint64 // when it was last recorded (FileState.clock)
}

// NewFileState is an empty record.
func NewFileState() *FileState { return &FileState{files: map[string]seen{}} }

// Record notes the file at abs as the model now knows it.
func (s *FileState) Record(abs string) {
	fi, err := os.Stat(abs)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.clock++
	s.files[abs] = seen{fi.ModTime(), fi.Size(), s.clock}
	s.mu.Unlock()
}

// Known reports whether abs was read.
func (s *FileState) Known(abs string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.files[abs]
	return ok
}

// CheckFresh fails when abs was never read or changed since it was.
func (s *FileState) CheckFresh(abs string) error {
	s.mu.Lock()
	v, ok := s.files[abs]
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("%s has not been read yet: read it first", abs)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return err
	}
	if !fi.ModTime().Equal(v.mod) || fi.Size() != v.size {
		return fmt.Errorf("%s changed since it was read: read it again", abs)
	}
	return nil
}

// Paths lists the recorded files, most recent first is not kept: callers
// wanting recency use Recent.
func (s *FileState) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.files))
	for p := range s.files {
		out = append(out, p)
	}
	return out
}

// Recent lists at most n recorded files, the most recently recorded first
// (n <= 0: all). Compaction re-attaches these.
func (s *FileState) Recent(n int) []string {
	s.mu.Lock()
	type entry struct {
		path string
		at   uint64
	}
	all := make([]entry, 0, len(s.files))
	for p, v := range s.files {
		all = append(all, entry{p, v.at})
	}
	s.mu.Unlock()
	sort.Slice(all, func(i, j int) bool { return all[i].at > all[j].at })
	if n > 0 && len(all) > n {
		all = all[:n]
	}
	out := make([]string, len(all))
	for i, e := range all {
		out[i] = e.path
	}
	return out
}
