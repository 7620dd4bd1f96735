package openai

import (
	"context"
	"encoding/json"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/llm/httpc"
)

// Responses streams answers of the Responses API (POST {base}/responses).
// Requests are stateless (store: false): the whole conversation is sent
// each time, reasoning travelling back as encrypted content.
type Responses struct {
	name string
	ep   httpc.Endpoint
}

// NewResponses makes the provider reported under name ("openai" if empty).
func NewResponses(name string, ep httpc.Endpoint) *Responses {
	if name == "" {
		name = "openai"
	}
	if ep.BaseURL == "" {
		ep.BaseURL = DefaultBaseURL
	}
	return &Responses{name: name, ep: ep}
}

func (p *Responses) Name() string { return p.name }

// Stream implements llm.Provider.
func (p *Responses) Stream(ctx context.Context, req *llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	r, err := post(ctx, p.ep, p.name, "/responses", buildResponsesRequest(req))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out, err := readResponses(p.name, r, emitter(onDelta))
	return out, streamErr(ctx, err)
}

type responsesRequest struct {
	Model           string           `json:"model"`
	Instructions    string           `json:"instructions,omitempty"`
	Input           []map[string]any `json:"input"`
	Tools           []map[string]any `json:"tools,omitempty"`
	MaxOutputTokens int              `json:"max_output_tokens,omitempty"`
	Reasoning       map[string]any   `json:"reasoning,omitempty"`
	Include         []string         `json:"include,omitempty"`
	Store           bool             `json:"store"`
	Stream          bool             `json:"stream"`
}

func buildResponsesRequest(req *llm.Request) *responsesRequest {
	w := &responsesRequest{Model: req.Model, Instructions: req.System, MaxOutputTokens: req.MaxTokens, Stream: true}
	if req.Effort != "" {
		w.Reasoning = map[string]any{"effort": req.Effort, "summary": "auto"}
		w.Include = []string{"reasoning.encrypted_content"}
	}
	for _, t := range req.Tools {
		w.Tools = append(w.Tools, map[string]any{"type": "function", "name": t.Name,
			"description": t.Description, "parameters": t.Schema, "strict": false})
	}
	w.Input = []map[string]any{}
	for _, m := range req.Messages {
		w.Input = append(w.Input, inputItems(m)...)
	}
	return w
}

// inputItems turns a message into input items, keeping block order.
func inputItems(m llm.Message) []map[string]any {
	textType := "input_text"
	if m.Role == llm.Assistant {
		textType = "output_text"
	}
	var out []map[string]any
	for _, b := range m.Content {
		switch b.Type {
		case llm.BlockText:
			out = append(out, map[string]any{"type": "message", "role": string(m.Role),
				"content": []map[string]any{{"type": textType, "text": b.Text}}})
		case llm.BlockThinking:
			if b.Signature == "" {
				continue // nothing the API can take back without its encrypted content
			}
			summary := []map[string]any{}
			if b.Text != "" {
				summary = append(summary, map[string]any{"type": "summary_text", "text": b.Text})
			}
			out = append(out, map[string]any{"type": "reasoning", "summary": summary, "encrypted_content": b.Signature})
		case llm.BlockToolUse:
			out = append(out, map[string]any{"type": "function_call", "call_id": b.ID, "name": b.Name,
				"arguments": string(args(b.Input))})
		case llm.BlockToolResult:
			out = append(out, map[string]any{"type": "function_call_output", "call_id": b.ToolUseID,
				"output": resultText(b)})
		}
	}
	return out
}

// args is a tool call's arguments, {} when none.
func args(in json.RawMessage) json.RawMessage {
	if len(in) == 0 {
		return json.RawMessage(`{}`)
	}
	return in
}

// resultText marks a failed tool's output: neither OpenAI API has a flag.
func resultText(b llm.Block) string {
	if b.IsError {
		return "Error: " + b.Content
	}
	return b.Content
}
