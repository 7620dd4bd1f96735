package interactive

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/lock"
	"github.com/csa-dev/csa/internal/verbatim"
)

// Journal bounds: past either, the oldest half is dropped.
const (
	JournalMaxBytes = 256 << 10
	JournalMaxLines = 2000
)

// Entry is one line of the activity journal.
type Entry struct {
	TS   time.Time       `json:"ts"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data,omitempty"`
	// RawBytes: the exact bytes of Data's strings that are not UTF-8
	// (text sent to the pane is any bytes), as in events.Event.
	RawBytes map[string]string `json:"raw_bytes,omitempty"`
}

// Activity types.
const (
	EvSpawned      = "spawned"
	EvAgentStarted = "agent.started"
	EvReady        = "agent.ready" // the agent's own start hook
	EvAgentExited  = "agent.exited"
	EvInputSent    = "input.sent"
	EvSubmitted    = "prompt.submitted" // the agent's own submit hook
	EvTurnDone     = "turn.completed"
	EvState        = "state.changed"
	EvSignal       = "signal"
)

// Append adds one entry to dir's journal under its lock, trimming the
// journal when it grows past its bounds.
func Append(dir, typ string, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	line, err := json.Marshal(Entry{TS: time.Now().UTC(), Type: typ, Data: raw, RawBytes: verbatim.Of(raw, data)})
	if err != nil {
		return err
	}
	path := filepath.Join(dir, ActivityFile)
	l := lock.New(path + ".lock")
	if err := l.LockTimeout(context.Background(), LockTimeout); err != nil {
		return err
	}
	defer l.Unlock()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(append(line, '\n'))
	fi, serr := f.Stat()
	f.Close()
	if werr != nil {
		return werr
	}
	// Lines are counted only when the size suggests the bound may be near
	// (an entry is rarely under 64 bytes), so most appends read nothing.
	if serr == nil && (fi.Size() > JournalMaxBytes || fi.Size() > JournalMaxLines*64) {
		return trim(path)
	}
	return nil
}

// trim keeps the newest half of the journal when it is over a bound.
func trim(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := bytes.Count(b, []byte{'\n'})
	if len(b) <= JournalMaxBytes && lines <= JournalMaxLines {
		return nil
	}
	keepBytes, keepLines := JournalMaxBytes/2, JournalMaxLines/2
	cut := len(b)
	for n := 0; cut > 0 && n < keepLines; n++ {
		i := bytes.LastIndexByte(b[:cut-1], '\n')
		if i < 0 || len(b)-(i+1) > keepBytes {
			break
		}
		cut = i + 1
	}
	return fsutil.WriteFileReplace(path, b[cut:])
}

// ReadJournal returns the entries of dir's journal (damaged lines skipped).
func ReadJournal(dir string) ([]Entry, error) {
	f, err := os.Open(filepath.Join(dir, ActivityFile))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	var out []Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var e Entry
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Type != "" {
			out = append(out, e)
		}
	}
	return out, sc.Err()
}

// lastStateFile remembers the last state `csa status` saw, so that only
// changes reach the journal.
const lastStateFile = "status.last"

// NoteState journals v's state if it differs from the last one noted.
func NoteState(dir string, v Verdict) {
	path := filepath.Join(dir, lastStateFile)
	prev, _ := os.ReadFile(path)
	if string(prev) == string(v.State) {
		return
	}
	if fsutil.WriteFileReplace(path, []byte(v.State)) == nil {
		Append(dir, EvState, map[string]any{"from": string(prev), "to": v.State, "reason": v.Reason})
	}
}
