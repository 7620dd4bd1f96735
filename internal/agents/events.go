package agents

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/csa-dev/csa/internal/session"
)

// Normalised event types, common to every tool.
const (
	EvText       = "text"
	EvThought    = "thought"
	EvToolCall   = "tool_call"
	EvToolResult = "tool_result"
	EvUsage      = "usage"
	EvError      = "error"
	EvSession    = "provider_session"
	EvUnparsed   = "unparsed"
	EvRetry      = "retry"
)

// Event is a normalised event; Data is one of the structs below.
type Event struct {
	Type string
	Data any
}

// Text is assistant text; Delta marks a fragment of a streamed message.
type Text struct {
	Text  string `json:"text"`
	Delta bool   `json:"delta,omitempty"`
}

// ToolCall is the agent starting a tool.
type ToolCall struct {
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
}

// ToolResult is a tool finishing.
type ToolResult struct {
	ID      string `json:"id,omitempty"`
	Name    string `json:"name,omitempty"`
	Output  string `json:"output,omitempty"`
	IsError bool   `json:"is_error,omitempty"`
}

// ErrorEvent is an error the program reported in its stream.
type ErrorEvent struct {
	Message string `json:"message"`
	Status  int    `json:"status,omitempty"`
}

// Retry is the agent retrying a failed model request by itself, as it
// reports it.
type Retry struct {
	Attempt int   `json:"attempt"`
	Max     int   `json:"max,omitempty"`      // attempts it will make in all, when it says
	Status  int   `json:"status,omitempty"`   // HTTP status of the failed request
	DelayMS int64 `json:"delay_ms,omitempty"` // before the next attempt
	// RateLimited: the request failed on a rate limit or overload.
	RateLimited bool   `json:"rate_limited"`
	Message     string `json:"message,omitempty"`
}

// StderrParser is a Parser that also reads the program's standard error,
// for programs that report there (Gemini CLI's retries).
type StderrParser interface {
	FeedStderr(line []byte) []Event
}

// SessionEvent names the provider's session.
type SessionEvent struct {
	ID    string `json:"id"`
	Model string `json:"model,omitempty"`
}

// Unparsed notes a stdout line that is not the tool's JSON; the bytes are
// in the output log, untouched.
type Unparsed struct {
	Bytes  int    `json:"bytes"`
	Prefix string `json:"prefix"`
}

// stream holds what every parser accumulates.
type stream struct {
	sessionID string
	model     string // as the program named it
	usage     *session.Usage
	errors    []string
	status    int // HTTP status of the provider error the program reported
	unparsed  int
}

const maxErrors = 32

// maxUnparsedEvents bounds the events recorded for a program that prints
// non-JSON (binary, gigabytes of text); the log keeps every byte anyway.
const maxUnparsedEvents = 20

// decode unmarshals a JSON line into v, or records it as unparsed. Lines
// that cannot be a JSON object are not handed to the decoder at all: a
// program flooding plain text must cost little.
func (s *stream) decode(line []byte, v any) ([]Event, bool) {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return nil, false
	}
	if trimmed[0] != '{' || json.Unmarshal(trimmed, v) != nil {
		s.unparsed++
		if s.unparsed > maxUnparsedEvents {
			return nil, false
		}
		p := trimmed[:min(len(trimmed), 80)]
		return []Event{{EvUnparsed, Unparsed{Bytes: len(line), Prefix: strings.ToValidUTF8(string(p), "?")}}}, false
	}
	return nil, true
}

// MaxResult bounds the answer kept in memory and in the state file; the
// whole output is in the log.
const MaxResult = 64 * 1024

// tail keeps the last MaxResult bytes of s, on a UTF-8 boundary.
func tail(s string) string {
	if len(s) <= MaxResult {
		return s
	}
	return strings.ToValidUTF8(s[len(s)-MaxResult:], "")
}

// appendTail appends t to b and keeps only its last MaxResult bytes.
func appendTail(b *strings.Builder, t string) {
	if b.Len()+len(t) <= 2*MaxResult {
		b.WriteString(t)
		return
	}
	keep := tail(b.String() + t)
	b.Reset()
	b.WriteString(keep)
}

func (s *stream) setSession(id, model string) []Event {
	if model != "" {
		s.model = model
	}
	if id == "" || id == s.sessionID {
		return nil
	}
	s.sessionID = id
	return []Event{{EvSession, SessionEvent{ID: id, Model: model}}}
}

func (s *stream) addUsage(u session.Usage) Event {
	if s.usage == nil {
		s.usage = &session.Usage{}
	}
	s.usage.InputTokens += u.InputTokens
	s.usage.OutputTokens += u.OutputTokens
	s.usage.CachedTokens += u.CachedTokens
	s.usage.CacheWriteTokens += u.CacheWriteTokens
	return Event{EvUsage, u}
}

func (s *stream) addError(msg string) Event { return s.addErrorStatus(msg, 0) }

// addErrorStatus records an error with the provider's HTTP status, the
// most reliable evidence for classifying it.
func (s *stream) addErrorStatus(msg string, status int) Event {
	if len(s.errors) >= maxErrors { // a program repeating an error must not grow memory
		s.errors = append(s.errors[:0], s.errors[len(s.errors)-maxErrors/2:]...)
	}
	s.errors = append(s.errors, clip(msg))
	if status != 0 {
		s.status = status
	}
	return Event{EvError, ErrorEvent{Message: msg, Status: status}}
}

// finish turns what was seen into an Outcome: a non-zero exit or a
// reported error is classified; a clean exit without an answer is
// no_result.
func (s *stream) finish(result string, exit int, stderr string, failed bool) Outcome {
	// Trailing newlines are how streams end lines, not part of the answer.
	result = strings.TrimRight(tail(result), " \t\r\n")
	o := Outcome{Result: result, ProviderSessionID: s.sessionID, Model: s.model, Usage: s.usage}
	evidence := strings.Join(append(append([]string(nil), s.errors...), stderr), "\n")
	switch {
	case exit != 0 || failed || (strings.TrimSpace(result) == "" && len(s.errors) > 0):
		o.Failure = ClassifyStatus(s.status, evidence, exit)
		// The program's own structured error says it best; its stderr
		// (often a stack trace or a banner) only when there is none.
		if n := len(s.errors); n > 0 && strings.TrimSpace(s.errors[n-1]) != "" {
			o.Failure.Message = clip(strings.TrimSpace(s.errors[n-1]))
		}
	case strings.TrimSpace(result) == "":
		o.Failure = &session.Failure{Class: session.FailNoResult, Message: "the program exited 0 without an answer"}
	}
	return o
}
