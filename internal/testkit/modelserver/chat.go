package modelserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// chatAPI speaks OpenAI Chat Completions (OpenCode).
type chatAPI struct{}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

func (m chatMessage) text() string {
	return responsesItem{Content: m.Content}.text()
}

func (chatAPI) parse(_ *http.Request, body []byte) (*request, error) {
	var in struct {
		Model    string        `json:"model"`
		Stream   bool          `json:"stream"`
		Messages []chatMessage `json:"messages"`
		Tools    []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, err
	}
	req := &request{API: APIChat, Model: in.Model, Stream: in.Stream, size: len(body)}
	var texts []string
	var tc turnCounter
	for _, m := range in.Messages {
		switch m.Role {
		case "user":
			if t := humanText(m.text()); t != "" {
				req.UserText = t
				tc.human()
			}
		case "assistant":
			tc.assistant()
		case "system", "developer":
			texts = append(texts, m.text())
			if isTitleCall(m.text()) {
				req.Utility = "title"
			}
		default:
			tc.other()
		}
	}
	req.Turn = tc.turns
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	req.Cwd = findCwd(texts...)
	return req, nil
}

// isTitleCall spots OpenCode's side call that names a session.
func isTitleCall(system string) bool {
	return strings.Contains(system, "You are a title generator")
}

func (chatAPI) write(ctx context.Context, w http.ResponseWriter, req *request, a *answer) error {
	id, created := newID("chatcmpl-"), time.Now().Unix()
	finish := "stop"
	var calls []map[string]any
	for i, c := range a.Calls {
		finish = "tool_calls"
		args, _ := json.Marshal(c.Args)
		calls = append(calls, map[string]any{"index": i, "id": newID("call_"), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": string(args)}})
	}
	usage := map[string]any{"prompt_tokens": a.InTokens, "completion_tokens": a.OutTokens,
		"total_tokens": a.InTokens + a.OutTokens}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": a.Text}
		if calls != nil {
			msg["tool_calls"] = calls
		}
		if a.Thinking != "" {
			msg["reasoning_content"] = a.Thinking
		}
		writeBody(w, a, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return nil
	}
	s := newSSE(ctx, w, a)
	if a.Truncated {
		s.cutAfter = 2
	}
	chunk := func(delta map[string]any, finish any, usage any) error {
		choices := []any{}
		if delta != nil {
			choices = []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}
		}
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created,
			"model": req.Model, "choices": choices}
		if usage != nil {
			c["usage"] = usage
		}
		return s.send("", c)
	}
	if err := chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil); err != nil {
		return err
	}
	// reasoning_content is how vLLM, llama.cpp and DeepSeek stream thinking.
	if a.Thinking != "" {
		for _, c := range chunks(a.Thinking, 2) {
			if err := chunk(map[string]any{"reasoning_content": c}, nil, nil); err != nil {
				return err
			}
		}
	}
	if a.Text != "" {
		for _, c := range chunks(a.Text, 3) {
			if err := chunk(map[string]any{"content": c}, nil, nil); err != nil {
				return err
			}
		}
	}
	for i, c := range calls {
		fn := c["function"].(map[string]any)
		first := map[string]any{"index": i, "id": c["id"], "type": "function",
			"function": map[string]any{"name": fn["name"], "arguments": ""}}
		if err := chunk(map[string]any{"tool_calls": []any{first}}, nil, nil); err != nil {
			return err
		}
		for _, p := range splitHalves(fn["arguments"].(string)) {
			d := map[string]any{"index": i, "function": map[string]any{"arguments": p}}
			if err := chunk(map[string]any{"tool_calls": []any{d}}, nil, nil); err != nil {
				return err
			}
		}
	}
	if err := chunk(map[string]any{}, finish, nil); err != nil {
		return err
	}
	if err := chunk(nil, nil, usage); err != nil {
		return err
	}
	return s.sendRaw("", "[DONE]")
}

func (chatAPI) writeError(w http.ResponseWriter, e apiError) {
	writeOpenAIError(w, e)
}
