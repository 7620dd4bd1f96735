package llm

import (
	"context"
	"time"
)

// StopReason says why the model stopped.
type StopReason string

const (
	StopEnd       StopReason = "end_turn"
	StopToolUse   StopReason = "tool_use"
	StopMaxTokens StopReason = "max_tokens"
)

// Request is one call to a model.
type Request struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int
	// Effort is the thinking or reasoning effort: "", low, medium, high
	// (mapped to each API's own knob; "" leaves thinking off).
	Effort string
}

// Response is a complete answer.
type Response struct {
	Message Message // role assistant
	Stop    StopReason
	Usage   Usage
	Model   string // as the provider reported it
}

// Delta kinds.
const (
	DeltaText     = "text"
	DeltaThinking = "thinking"
	DeltaToolUse  = "tool_use" // a tool call began: Name and ID set
)

// Delta is a streamed fragment, for display only: the Response is the
// record.
type Delta struct {
	Kind string
	Text string
	ID   string
	Name string
}

// Provider is one model API.
type Provider interface {
	// Name is the provider's config name: anthropic, openai, chat, gemini.
	Name() string
	// Stream sends req and streams the answer; onDelta (may be nil) sees
	// fragments as they arrive. Errors are *APIError when the API
	// answered, or the transport's error.
	Stream(ctx context.Context, req *Request, onDelta func(Delta)) (*Response, error)
}

// Timeouts bound one request.
type Timeouts struct {
	// Request bounds the time to the response headers.
	Request time.Duration
	// Stall bounds the silence between two streamed events.
	Stall time.Duration
}
