// Package render turns csa-agent's events into what people and programs
// read: stream-json lines (Claude Code's format, so whatever reads Claude
// Code's output reads csa-agent's), a final JSON object, or text.
package render

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/llm"
)

// StreamJSON writes one JSON line per message, retry and result.
type StreamJSON struct {
	mu        sync.Mutex
	w         io.Writer
	SessionID string
	// Partial also writes text and thinking deltas (stream_event lines).
	Partial bool
}

// NewStreamJSON writes to w for session id.
func NewStreamJSON(w io.Writer, sessionID string) *StreamJSON {
	return &StreamJSON{w: w, SessionID: sessionID}
}

type object = map[string]any

func (s *StreamJSON) Emit(e event.Event) {
	var parent any
	if e.Agent != "" {
		parent = e.Agent
	}
	switch e.Kind {
	case event.Init:
		s.write(object{"type": "system", "subtype": "init", "session_id": s.SessionID, "cwd": e.Cwd,
			"model": e.Model, "tools": e.Tools, "permissionMode": e.Mode, "agent": "csa-agent",
			"mcp_servers": mcpServers(e.MCPServers)})
	case event.Assistant:
		s.write(object{"type": "assistant", "session_id": s.SessionID, "parent_tool_use_id": parent,
			"message": object{"type": "message", "role": "assistant", "model": e.Model, "content": blocks(e.Message)}})
	case event.ToolResults:
		s.write(object{"type": "user", "session_id": s.SessionID, "parent_tool_use_id": parent,
			"message": object{"role": "user", "content": blocks(e.Message)}})
	case event.Retry:
		if e.Agent == "" {
			s.write(object{"type": "system", "subtype": "api_retry", "session_id": s.SessionID, "attempt": e.Attempt,
				"max_retries": e.MaxRetries, "retry_delay_ms": e.Delay.Milliseconds(), "error_status": e.Status, "error": e.Text})
		}
	case event.CompactEnd:
		s.write(object{"type": "system", "subtype": "compact_boundary", "session_id": s.SessionID,
			"compact_metadata": object{"trigger": e.Mode, "pre_tokens": tokens(e.Usage)}})
	case event.SubagentStart, event.SubagentStop:
		s.write(object{"type": "system", "subtype": string(e.Kind), "session_id": s.SessionID, "agent_id": e.Agent,
			"description": e.Text, "is_error": e.IsError})
	case event.TextDelta, event.ThinkingDelta:
		if s.Partial && e.Agent == "" {
			typ := "text_delta"
			if e.Kind == event.ThinkingDelta {
				typ = "thinking_delta"
			}
			s.write(object{"type": "stream_event", "session_id": s.SessionID,
				"event": object{"type": "content_block_delta", "delta": object{"type": typ, "text": e.Text}}})
		}
	case event.Result:
		if e.Agent == "" {
			s.write(Result(e, s.SessionID))
		}
	}
}

// Result is the final result object (stream-json's last line, json's only
// one).
func Result(e event.Event, sessionID string) map[string]any {
	subtype := "success"
	switch e.Mode {
	case "max_turns":
		subtype = "error_max_turns"
	case "done", "stopped":
	default:
		subtype = "error_during_execution"
	}
	r := object{"type": "result", "subtype": subtype, "is_error": e.IsError, "result": e.Text,
		"session_id": sessionID, "num_turns": e.Turns, "duration_ms": e.Duration.Milliseconds(),
		"usage": e.Usage, "stop": e.Mode}
	if e.Class != "" {
		r["failure_class"] = e.Class
	}
	if e.Status != 0 {
		r["api_error_status"] = e.Status
	}
	return r
}

func (s *StreamJSON) write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.w.Write(append(b, '\n'))
	s.mu.Unlock()
}

// blocks is a message's content as Claude Code writes it.
func blocks(m *llm.Message) []llm.Block {
	if m == nil {
		return nil
	}
	return m.Content
}

func tokens(u *llm.Usage) int64 {
	if u == nil {
		return 0
	}
	return u.InputTokens + u.OutputTokens
}

// mcpServers is Claude Code's init field: [{name, status}], [] for none.
func mcpServers(list []event.MCPServer) []object {
	out := []object{}
	for _, s := range list {
		o := object{"name": s.Name, "status": s.Status}
		if s.Error != "" {
			o["error"] = s.Error
		}
		out = append(out, o)
	}
	return out
}
