// Package transcript writes a csa-agent session as Claude Code writes its
// transcripts: JSON lines of type user and assistant, each with its uuid,
// parentUuid, sessionId, cwd, timestamp and the API message, appended as
// the session goes. Hook scripts reading transcript_path and tools that
// read Claude Code transcripts (usage counters, session viewers) work on
// it unchanged. It is a copy for them: csa-agent's own store (package
// store) stays what --resume reads.
//
// The files live beside csa-agent's store, not under ~/.claude/projects:
// Claude Code would list them as its own sessions and try to resume them,
// and its usage tools would bill other providers' models as Claude's.
package transcript

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/session"
)

// Version is what the lines say wrote them (Claude Code puts its version).
const Version = "csa-agent"

// Path is the transcript of session id under dir (the store's directory).
func Path(dir, id string) string { return filepath.Join(dir, "transcripts", id+".jsonl") }

// SubagentPath is the transcript of a subagent of session id, where
// Claude Code keeps its subagents' (agent_transcript_path).
func SubagentPath(dir, id, agentID string) string {
	return filepath.Join(dir, "transcripts", id, "subagents", "agent-"+agentID+".jsonl")
}

// Session writes the transcripts of one session: the main agent's and
// each subagent's. It is an event.Sink (it learns each response's usage
// and model, and each tool's result object, from the events) and records
// the messages it is given with Message.
type Session struct {
	dir, id, cwd string
	now          func() time.Time

	mu     sync.Mutex
	files  map[string]*file // by agent id, "" the main agent
	usage  map[string]response
	result map[string]any // tool_use id → the tool's result object
	err    error          // the first write failure
}

// response is what the Usage event said of the agent's next message.
type response struct {
	usage llm.Usage
	model string
}

type file struct {
	path      string
	f         *os.File
	last      string // uuid of the latest line: the next one's parent
	sidechain bool
	agentID   string
	// uses are the assistant lines' uuids by tool_use id (a result's
	// sourceToolAssistantUUID).
	uses map[string]string
}

// New starts the transcripts of session id (dir is the store's directory).
// Files are created as their first line is written.
func New(dir, id, cwd string) *Session {
	return &Session{dir: dir, id: id, cwd: cwd, now: time.Now, files: map[string]*file{},
		usage: map[string]response{}, result: map[string]any{}}
}

// Path is the main transcript's path (transcript_path).
func (s *Session) Path() string { return Path(s.dir, s.id) }

// SubagentPath is subagent agentID's transcript (agent_transcript_path).
func (s *Session) SubagentPath(agentID string) string { return SubagentPath(s.dir, s.id, agentID) }

// Emit keeps what the messages' lines need from the events.
func (s *Session) Emit(e event.Event) {
	switch e.Kind {
	case event.Usage:
		if e.Usage != nil {
			s.mu.Lock()
			s.usage[e.Agent] = response{usage: *e.Usage, model: e.Model}
			s.mu.Unlock()
		}
	case event.ToolFinished:
		if e.Response != nil {
			s.mu.Lock()
			s.result[e.ToolID] = e.Response
			s.mu.Unlock()
		}
	}
}

// Message appends a message of agent agentID ("" the main agent).
func (s *Session) Message(agentID string, m llm.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.file(agentID)
	if err != nil {
		s.fail(err)
		return
	}
	for _, l := range s.lines(f, m) {
		b, err := json.Marshal(l)
		if err == nil {
			_, err = f.f.Write(append(b, '\n'))
		}
		if err != nil {
			s.fail(err)
			return
		}
	}
}

// Err is the first failure to write (nil when all went well).
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Session) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// Close closes the files.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.files {
		f.f.Close()
	}
	return s.err
}

func (s *Session) file(agentID string) (*file, error) {
	if f, ok := s.files[agentID]; ok {
		return f, nil
	}
	path := s.Path()
	if agentID != "" {
		path = s.SubagentPath(agentID)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	// A resumed session continues its transcript.
	osf, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	f := &file{path: path, f: osf, sidechain: agentID != "", agentID: agentID, uses: map[string]string{},
		last: lastUUID(path)}
	s.files[agentID] = f
	return f, nil
}

func newUUID() string { return session.NewUUID() }
