package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/llm"
)

// Compatible servers (llama.cpp, Ollama, vLLM) reject or misread fields
// they do not know: only reasoning_effort is OpenAI's, and only on request.
func TestChatRequestFields(t *testing.T) {
	req := &llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("hi")}}
	data, _ := json.Marshal(buildChatRequest(req))
	var m map[string]any
	_ = json.Unmarshal(data, &m)
	for k := range m {
		switch k {
		case "model", "messages", "stream", "stream_options":
		default:
			t.Errorf("field %s sent: %s", k, data)
		}
	}
	req.Effort = "high"
	if data, _ := json.Marshal(buildChatRequest(req)); !strings.Contains(string(data), `"reasoning_effort":"high"`) {
		t.Errorf("effort not sent: %s", data)
	}
}

// Tool results go first, as role tool messages right after the calls.
func TestChatMessagesOrder(t *testing.T) {
	m := llm.Message{Role: llm.User, Content: []llm.Block{
		{Type: llm.BlockText, Text: "and also"},
		{Type: llm.BlockToolResult, ToolUseID: "c1", Content: "boom", IsError: true},
	}}
	out := chatMessages(m)
	if len(out) != 2 || out[0]["role"] != "tool" || out[0]["content"] != "Error: boom" || out[1]["role"] != "user" {
		t.Errorf("%+v", out)
	}
}
