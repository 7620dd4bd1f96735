// Package event is the one channel from csa-agent's loop to whatever shows
// or records it: the human renderer, stream-json, the session's JSONL. The
// loop emits; it never formats.
package event

import (
	"encoding/json"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/llm"
)

// Kind names an event.
type Kind string

const (
	Init          Kind = "init"           // session, model, tools, cwd
	TurnStart     Kind = "turn_start"     // a model request is about to go out
	TextDelta     Kind = "text_delta"     // streamed text
	ThinkingDelta Kind = "thinking_delta" // streamed thinking
	Assistant     Kind = "assistant"      // a complete assistant message
	ToolQueued    Kind = "tool_queued"    // a call of this turn waits to run
	ToolStarted   Kind = "tool_started"   // it runs
	ToolFinished  Kind = "tool_finished"  // its result (Result, IsError)
	ToolResults   Kind = "tool_results"   // the user message carrying a turn's results
	Usage         Kind = "usage"          // tokens of one response
	Retry         Kind = "retry"          // a request failed and will be retried
	CompactStart  Kind = "compact_start"
	CompactEnd    Kind = "compact_end"
	SubagentStart Kind = "subagent_start"
	SubagentStop  Kind = "subagent_stop"
	PlanMode      Kind = "plan_mode"    // entered or left plan mode; Text is the plan on exit
	UserMessage   Kind = "user_message" // a message the loop added itself (background subagents' results)
	Result        Kind = "result"       // the run's end: Text, IsError, Class, totals
)

// Event is one thing that happened. Fields are set per Kind.
type Event struct {
	Kind Kind      `json:"kind"`
	Time time.Time `json:"time"`
	// Agent is "" for the main agent, else the subagent's id.
	Agent string `json:"agent,omitempty"`

	Text    string       `json:"text,omitempty"`
	Message *llm.Message `json:"message,omitempty"`
	Usage   *llm.Usage   `json:"usage,omitempty"`

	// Tool events.
	ToolID   string          `json:"tool_id,omitempty"`
	ToolName string          `json:"tool_name,omitempty"`
	Input    json.RawMessage `json:"input,omitempty"`
	IsError  bool            `json:"is_error,omitempty"`
	// Response is ToolFinished's result object in Claude Code's shape
	// (tool.Result.Response), for Claude Code transcripts; not stored.
	Response any `json:"-"`

	// Retry.
	Attempt    int           `json:"attempt,omitempty"`
	MaxRetries int           `json:"max_retries,omitempty"`
	Status     int           `json:"status,omitempty"`
	Delay      time.Duration `json:"delay,omitempty"`

	// Result.
	Class    string        `json:"class,omitempty"` // failure class when IsError
	Turns    int           `json:"turns,omitempty"`
	Duration time.Duration `json:"duration,omitempty"`

	// Init.
	SessionID string   `json:"session_id,omitempty"`
	Model     string   `json:"model,omitempty"`
	Tools     []string `json:"tools,omitempty"`
	Cwd       string   `json:"cwd,omitempty"`
	Mode      string   `json:"mode,omitempty"`
	// MCPServers is how each configured MCP server's start went.
	MCPServers []MCPServer `json:"mcp_servers,omitempty"`

	// Compaction (CompactStart, CompactEnd): estimated tokens of the
	// conversation before and after; Text is the trigger (auto, manual).
	PreTokens  int64 `json:"pre_tokens,omitempty"`
	PostTokens int64 `json:"post_tokens,omitempty"`
}

// MCPServer is one MCP server in the init event, as Claude Code reports
// it: connected, failed or disabled.
type MCPServer struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// Sink receives events. Emit must be safe for concurrent use (parallel
// tools and subagents emit at once) and must not block for long.
type Sink interface {
	Emit(Event)
}

// Func adapts a function to a Sink.
type Func func(Event)

func (f Func) Emit(e Event) { f(e) }

// Multi fans out to several sinks in order.
type Multi []Sink

func (m Multi) Emit(e Event) {
	for _, s := range m {
		s.Emit(e)
	}
}
