package anthropic

import (
	"encoding/json"

	"github.com/csa-dev/csa/internal/csaagent/llm"
)

// Thinking budgets per effort; max_tokens must exceed the budget.
var budgets = map[string]int{"low": 2048, "medium": 8192, "high": 24576}

// DefaultMaxTokens is max_tokens when the request leaves it 0 (the API
// requires one).
const DefaultMaxTokens = 8192

type wireRequest struct {
	Model     string         `json:"model"`
	MaxTokens int            `json:"max_tokens"`
	System    string         `json:"system,omitempty"`
	Messages  []wireMessage  `json:"messages"`
	Tools     []llm.ToolSpec `json:"tools,omitempty"`
	Thinking  *thinking      `json:"thinking,omitempty"`
	Stream    bool           `json:"stream"`
}

type thinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

type wireMessage struct {
	Role    llm.Role    `json:"role"`
	Content []wireBlock `json:"content"`
}

// wireBlock is llm.Block as the API takes it: thinking in "thinking", and
// input always present on tool_use.
type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Thinking  string          `json:"thinking,omitempty"`
	Signature string          `json:"signature,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   *string         `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

func buildRequest(req *llm.Request) *wireRequest {
	w := &wireRequest{Model: req.Model, MaxTokens: req.MaxTokens, System: req.System, Tools: req.Tools, Stream: true}
	if w.MaxTokens <= 0 {
		w.MaxTokens = DefaultMaxTokens
	}
	if b, ok := budgets[req.Effort]; ok {
		w.Thinking = &thinking{Type: "enabled", BudgetTokens: b}
		if w.MaxTokens <= b {
			w.MaxTokens = b + DefaultMaxTokens
		}
	}
	for _, m := range req.Messages {
		wm := wireMessage{Role: m.Role}
		for _, b := range m.Content {
			if wb, ok := toWire(b); ok {
				wm.Content = append(wm.Content, wb)
			}
		}
		if len(wm.Content) > 0 {
			w.Messages = append(w.Messages, wm)
		}
	}
	return w
}

func toWire(b llm.Block) (wireBlock, bool) {
	switch b.Type {
	case llm.BlockText:
		return wireBlock{Type: b.Type, Text: b.Text}, b.Text != ""
	case llm.BlockThinking:
		// unsigned thinking (another provider's) cannot be sent back
		return wireBlock{Type: b.Type, Thinking: b.Text, Signature: b.Signature}, b.Signature != ""
	case llm.BlockToolUse:
		in := b.Input
		if len(in) == 0 {
			in = json.RawMessage(`{}`)
		}
		return wireBlock{Type: b.Type, ID: b.ID, Name: b.Name, Input: in}, true
	case llm.BlockToolResult:
		c := b.Content
		return wireBlock{Type: b.Type, ToolUseID: b.ToolUseID, Content: &c, IsError: b.IsError}, true
	}
	return wireBlock{}, false
}
