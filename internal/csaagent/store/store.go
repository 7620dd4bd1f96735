// Package store keeps csa-agent's conversations: one JSONL file per
// session, appended as the conversation grows, so a crash loses at most
// the message being written and `--resume` continues where it stopped.
package store

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaenv"
)

// Record kinds.
const (
	KindMeta    = "meta"    // first line: model, cwd
	KindMessage = "message" // one message of the conversation
	// KindCompact replaces everything before it: its Messages are the
	// conversation as compacted (the summary and the kept turns).
	KindCompact = "compact"
	KindPlan    = "plan" // a plan presented by ExitPlanMode
	// KindEvent is something that happened besides the conversation: a
	// tool's start and end, a retry, a compaction, a subagent, with
	// times (what took how long, what overlapped).
	KindEvent = "event"
)

// Record is one line.
type Record struct {
	Kind     string        `json:"kind"`
	Time     time.Time     `json:"time"`
	Message  *llm.Message  `json:"message,omitempty"`
	Messages []llm.Message `json:"messages,omitempty"`
	Text     string        `json:"text,omitempty"`
	Model    string        `json:"model,omitempty"`
	Cwd      string        `json:"cwd,omitempty"`
	Event    *event.Event  `json:"event,omitempty"`
}

// Dir is where conversations are kept: under the csa session when csa runs
// the agent (CSA_SESSION_DIR), else the user's state directory.
func Dir(getenv func(string) string) string {
	if d := getenv(csaenv.SessionDir); d != "" {
		return filepath.Join(d, "csa-agent")
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "csa-agent", "sessions")
	}
	return filepath.Join(getenv("HOME"), ".local", "state", "csa-agent", "sessions")
}

// Path is the file of session id under dir.
func Path(dir, id string) string { return filepath.Join(dir, id+".jsonl") }

// Conversation is an open session file.
type Conversation struct {
	mu sync.Mutex
	f  *os.File
}

// Create starts a new session file; it fails if id exists.
func Create(dir, id string, meta Record) (*Conversation, error) {
	if err := validID(id); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(Path(dir, id), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("session %s already exists: continue it with --resume", id)
	}
	if err != nil {
		return nil, err
	}
	c := &Conversation{f: f}
	meta.Kind = KindMeta
	return c, c.Append(meta)
}

// Open continues session id, returning its conversation so far.
func Open(dir, id string) (*Conversation, []llm.Message, error) {
	if err := validID(id); err != nil {
		return nil, nil, err
	}
	msgs, err := Load(Path(dir, id))
	if err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(Path(dir, id), os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, err
	}
	return &Conversation{f: f}, msgs, nil
}

// Append writes one record as one write, so lines never interleave.
func (c *Conversation) Append(r Record) error {
	if r.Time.IsZero() {
		r.Time = time.Now()
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = c.f.Write(append(b, '\n'))
	return err
}

// Message appends a message of the conversation.
func (c *Conversation) Message(m llm.Message) error {
	return c.Append(Record{Kind: KindMessage, Message: &m})
}

// Emit records the events worth keeping (a Sink): not the deltas, which
// the messages hold whole, nor the messages themselves.
func (c *Conversation) Emit(e event.Event) {
	switch e.Kind {
	case event.TextDelta, event.ThinkingDelta, event.Assistant, event.ToolResults, event.ToolQueued:
		return
	}
	c.Append(Record{Kind: KindEvent, Time: e.Time, Event: &e})
}

// Close closes the file.
func (c *Conversation) Close() error { return c.f.Close() }

// Load reads a session file back into its conversation. A torn last line
// (a crash mid-write) is ignored.
func Load(path string) ([]llm.Message, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("no stored session %s", filepath.Base(path))
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var msgs []llm.Message
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	for sc.Scan() {
		var r Record
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		switch r.Kind {
		case KindMessage:
			if r.Message != nil {
				msgs = append(msgs, *r.Message)
			}
		case KindCompact:
			msgs = append([]llm.Message(nil), r.Messages...)
		}
	}
	return Repair(msgs), sc.Err()
}

// Repair drops a trailing assistant turn whose tool calls never got
// results (the process died while they ran), keeping the conversation
// acceptable to every API.
func Repair(msgs []llm.Message) []llm.Message {
	if n := len(msgs); n > 0 && msgs[n-1].Role == llm.Assistant && len(msgs[n-1].ToolUses()) > 0 {
		return msgs[:n-1]
	}
	return msgs
}

func validID(id string) error {
	if id == "" || len(id) > 128 || filepath.Base(id) != id || id[0] == '.' {
		return fmt.Errorf("invalid session id %q", id)
	}
	return nil
}
