package modelserver

import (
	"context"
	"encoding/json"
	"net/http"
	"unicode/utf8"
)

// anthropicAPI speaks the Anthropic Messages API (Claude Code, claude-code-acp).
type anthropicAPI struct{}

type anthropicBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// anthropicContent is a string or a list of blocks.
type anthropicContent []anthropicBlock

func (c *anthropicContent) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*c = anthropicContent{{Type: "text", Text: s}}
		return nil
	}
	return json.Unmarshal(b, (*[]anthropicBlock)(c))
}

func (c anthropicContent) text() string {
	var out string
	for _, b := range c {
		if b.Type == "text" {
			out += b.Text + "\n"
		}
	}
	return out
}

func (c anthropicContent) has(typ string) bool {
	for _, b := range c {
		if b.Type == typ {
			return true
		}
	}
	return false
}

type anthropicRequest struct {
	Model    string           `json:"model"`
	Stream   bool             `json:"stream"`
	System   anthropicContent `json:"system"`
	Messages []struct {
		Role    string           `json:"role"`
		Content anthropicContent `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

func (anthropicAPI) parse(_ *http.Request, body []byte) (*request, error) {
	var in anthropicRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, err
	}
	req := &request{API: APIAnthropic, Model: in.Model, Stream: in.Stream, size: len(body)}
	texts := []string{in.System.text()}
	var tc turnCounter
	for _, m := range in.Messages {
		switch {
		case m.Role == "assistant":
			tc.assistant()
		case m.Role == "user" && !m.Content.has("tool_result"):
			if t := humanText(m.Content.text()); t != "" {
				req.UserText = t
				tc.human()
			}
			texts = append(texts, m.Content.text())
		default:
			tc.other()
		}
	}
	req.Turn = tc.turns
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, t.Name)
	}
	req.Cwd = findCwd(texts...)
	return req, nil
}

// blocks is the answer's content: thinking, text, then the tool calls.
func (anthropicAPI) blocks(a *answer, sig string, ids []string) []map[string]any {
	var out []map[string]any
	if a.Thinking != "" {
		out = append(out, map[string]any{"type": "thinking", "thinking": a.Thinking, "signature": sig})
	}
	if a.Text != "" {
		out = append(out, map[string]any{"type": "text", "text": a.Text})
	}
	for i, c := range a.Calls {
		out = append(out, map[string]any{"type": "tool_use", "id": ids[i], "name": c.Name, "input": c.Args})
	}
	return out
}

func (x anthropicAPI) write(ctx context.Context, w http.ResponseWriter, req *request, a *answer) error {
	msgID, sig := newID("msg_"), newID("sig_")
	ids := make([]string, len(a.Calls))
	for i := range ids {
		ids[i] = newID("toolu_")
	}
	stop := "end_turn"
	if len(a.Calls) > 0 {
		stop = "tool_use"
	}
	usage := map[string]any{"input_tokens": a.InTokens, "output_tokens": a.OutTokens,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !req.Stream {
		writeBody(w, a, map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": req.Model,
			"content": x.blocks(a, sig, ids), "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return nil
	}
	s := newSSE(ctx, w, a)
	if a.Truncated {
		s.cutAfter = 3
	}
	start := map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": a.InTokens, "output_tokens": 1,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}}
	if err := s.send("message_start", start); err != nil {
		return err
	}
	index := 0
	block := func(cb map[string]any, deltas []map[string]any) error {
		if err := s.send("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": cb}); err != nil {
			return err
		}
		for _, d := range deltas {
			if err := s.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": d}); err != nil {
				return err
			}
		}
		err := s.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
		return err
	}
	if a.Thinking != "" {
		var deltas []map[string]any
		for _, c := range chunks(a.Thinking, 2) {
			deltas = append(deltas, map[string]any{"type": "thinking_delta", "thinking": c})
		}
		deltas = append(deltas, map[string]any{"type": "signature_delta", "signature": sig})
		if err := block(map[string]any{"type": "thinking", "thinking": "", "signature": ""}, deltas); err != nil {
			return err
		}
	}
	if a.Text != "" {
		var deltas []map[string]any
		for _, c := range chunks(a.Text, 3) {
			deltas = append(deltas, map[string]any{"type": "text_delta", "text": c})
		}
		if err := block(map[string]any{"type": "text", "text": ""}, deltas); err != nil {
			return err
		}
	}
	for i, c := range a.Calls {
		args, _ := json.Marshal(c.Args)
		var deltas []map[string]any
		for _, p := range splitHalves(string(args)) {
			deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": p})
		}
		cb := map[string]any{"type": "tool_use", "id": ids[i], "name": c.Name, "input": map[string]any{}}
		if err := block(cb, deltas); err != nil {
			return err
		}
	}
	if err := s.send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": a.OutTokens}}); err != nil {
		return err
	}
	return s.send("message_stop", map[string]any{"type": "message_stop"})
}

func (anthropicAPI) writeError(w http.ResponseWriter, e apiError) {
	typ := "api_error"
	switch e.Status {
	case 400:
		typ = "invalid_request_error"
	case 401:
		typ = "authentication_error"
	case 403:
		typ = "permission_error"
	case 404:
		typ = "not_found_error"
	case 413:
		typ = "request_too_large"
	case 429:
		typ = "rate_limit_error"
	case 529:
		typ = "overloaded_error"
	}
	if e.Kind == ErrOverloaded {
		e.Status, typ = 529, "overloaded_error"
	}
	e.retryDelay(w)
	w.Header().Set("Request-Id", newID("req_"))
	writeJSON(w, e.Status, map[string]any{"type": "error",
		"error": map[string]any{"type": typ, "message": e.Message}})
}

// splitHalves splits a string in two so tool arguments arrive in pieces.
func splitHalves(s string) []string {
	i := len(s) / 2
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	if i == 0 {
		return []string{s}
	}
	return []string{s[:i], s[i:]}
}
