package fleet

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/csa-dev/csa/internal/interactive"
	"github.com/csa-dev/csa/internal/proc"
)

// tailWindow bounds what one snapshot reads of a log: a session that wrote
// more since the last one is read from its last tailWindow bytes.
const tailWindow = 64 << 10

// tail follows a live session's logs: its events (headless) or its pane
// and turn record (interactive), from where the last snapshot stopped.
type tail struct {
	off, size      int64    // how far the file was read, and its size then
	turnsID        [2]int64 // size and modification time of the turn record read
	retries        int
	in, out        int64
	last, lastTurn string
	partial        []byte // an events line not yet ended
}

// read takes in what the session's logs gained since the last call.
func (t *tail) read(dir string, interactiveSession bool) {
	if interactiveSession {
		t.readPane(dir)
		return
	}
	path := filepath.Join(dir, "events.jsonl")
	data, ok := t.grown(path)
	if !ok {
		return
	}
	data = append(t.partial, data...)
	end := bytes.LastIndexByte(data, '\n')
	t.partial = append([]byte(nil), data[end+1:]...)
	for _, line := range bytes.Split(data[:end+1], []byte("\n")) {
		t.event(line)
	}
}

// grown returns what path gained since the last call (its last
// tailWindow bytes when it gained more).
func (t *tail) grown(path string) ([]byte, bool) {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() == t.size {
		return nil, false
	}
	if fi.Size() < t.off { // rewritten
		t.off, t.partial = 0, nil
	}
	t.size = fi.Size()
	from := t.off
	if t.size-from > tailWindow {
		from, t.partial = t.size-tailWindow, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.NewSectionReader(f, from, t.size-from))
	if err != nil {
		return nil, false
	}
	t.off = from + int64(len(data))
	return data, true
}

// event takes in one line of events.jsonl.
func (t *tail) event(line []byte) {
	var e struct {
		Type string `json:"type"`
		Data struct {
			Text         string `json:"text"`
			Delta        bool   `json:"delta"`
			InputTokens  int64  `json:"input_tokens"`
			OutputTokens int64  `json:"output_tokens"`
		} `json:"data"`
	}
	if json.Unmarshal(line, &e) != nil {
		return
	}
	switch e.Type {
	case "text":
		if l := lastLine(e.Data.Text); l != "" {
			t.last = l
		}
	case "usage":
		t.in += e.Data.InputTokens
		t.out += e.Data.OutputTokens
	case "retry":
		t.retries++
	}
}

// readPane takes the agent's last answer from its turn record, else the
// last line its pane showed.
func (t *tail) readPane(dir string) {
	if fi, err := os.Stat(filepath.Join(dir, interactive.TurnsFile)); err == nil && [2]int64{fi.Size(), fi.ModTime().UnixNano()} != t.turnsID {
		t.turnsID = [2]int64{fi.Size(), fi.ModTime().UnixNano()}
		if tr, err := interactive.ReadTurns(dir); err == nil {
			t.lastTurn = lastLine(tr.LastMessage)
		}
	}
	path := filepath.Join(dir, interactive.PaneLog)
	fi, err := os.Stat(path)
	if err != nil || fi.Size() == t.size {
		return
	}
	t.size = fi.Size()
	from := max(0, t.size-4096)
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	data, _ := io.ReadAll(io.NewSectionReader(f, from, t.size-from))
	text, _ := interactive.PaneText(data)
	if l := lastLine(text); l != "" {
		t.last = l
	}
}

// apply puts what the logs said into the row.
func (t *tail) apply(r *Row) {
	switch {
	case t.lastTurn != "":
		r.LastLine = t.lastTurn
	case t.last != "":
		r.LastLine = t.last
	}
	if r.InputTokens == 0 && r.OutputTokens == 0 {
		r.InputTokens, r.OutputTokens = t.in, t.out
	}
	r.Retries = max(r.Retries, t.retries)
}

// lastLine is the last line of s with text on it, trimmed.
func lastLine(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}

// treeRSS is the resident memory of pid and its descendants, in bytes.
func treeRSS(pid int) int64 {
	var sum int64
	proc.WalkTree(pid, func(p int) {
		if n, ok := proc.RSS(p); ok {
			sum += n
		}
	})
	return sum
}
