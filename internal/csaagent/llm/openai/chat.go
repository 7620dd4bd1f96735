package openai

import (
	"context"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/llm/httpc"
)

// Chat streams answers of Chat Completions (POST {base}/chat/completions),
// for any compatible server. It sends nothing OpenAI-only unless asked:
// reasoning_effort only with an Effort.
type Chat struct {
	name string
	ep   httpc.Endpoint
}

// NewChat makes the provider reported under name ("chat" if empty).
func NewChat(name string, ep httpc.Endpoint) *Chat {
	if name == "" {
		name = "chat"
	}
	if ep.BaseURL == "" {
		ep.BaseURL = DefaultBaseURL
	}
	return &Chat{name: name, ep: ep}
}

func (p *Chat) Name() string { return p.name }

// Stream implements llm.Provider.
func (p *Chat) Stream(ctx context.Context, req *llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	r, err := post(ctx, p.ep, p.name, "/chat/completions", buildChatRequest(req))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out, err := readChat(p.name, r, emitter(onDelta))
	return out, streamErr(ctx, err)
}

type chatRequest struct {
	Model           string           `json:"model"`
	Messages        []map[string]any `json:"messages"`
	Tools           []map[string]any `json:"tools,omitempty"`
	MaxTokens       int              `json:"max_tokens,omitempty"` // the widely understood name
	ReasoningEffort string           `json:"reasoning_effort,omitempty"`
	Stream          bool             `json:"stream"`
	StreamOptions   map[string]any   `json:"stream_options"`
}

func buildChatRequest(req *llm.Request) *chatRequest {
	w := &chatRequest{Model: req.Model, MaxTokens: req.MaxTokens, ReasoningEffort: req.Effort,
		Stream: true, StreamOptions: map[string]any{"include_usage": true}}
	if req.System != "" {
		w.Messages = append(w.Messages, map[string]any{"role": "system", "content": req.System})
	}
	for _, t := range req.Tools {
		w.Tools = append(w.Tools, map[string]any{"type": "function", "function": map[string]any{
			"name": t.Name, "description": t.Description, "parameters": t.Schema}})
	}
	for _, m := range req.Messages {
		w.Messages = append(w.Messages, chatMessages(m)...)
	}
	return w
}

// chatMessages turns a message into chat messages: tool results become
// role "tool" messages, first, since they must follow the calls.
func chatMessages(m llm.Message) []map[string]any {
	var out []map[string]any
	var text string
	var calls []map[string]any
	for _, b := range m.Content {
		switch b.Type {
		case llm.BlockText:
			text += b.Text
		case llm.BlockToolUse:
			calls = append(calls, map[string]any{"id": b.ID, "type": "function",
				"function": map[string]any{"name": b.Name, "arguments": string(args(b.Input))}})
		case llm.BlockToolResult:
			out = append(out, map[string]any{"role": "tool", "tool_call_id": b.ToolUseID, "content": resultText(b)})
		}
		// thinking has no standard way back in Chat Completions: dropped
	}
	switch {
	case m.Role == llm.Assistant && (text != "" || calls != nil):
		msg := map[string]any{"role": "assistant", "content": text}
		if calls != nil {
			msg["tool_calls"] = calls
		}
		out = append(out, msg)
	case m.Role == llm.User && text != "":
		out = append(out, map[string]any{"role": "user", "content": text})
	}
	return out
}
