package modelserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// responsesAPI speaks the OpenAI Responses API (Codex, codex-acp).
type responsesAPI struct{}

type responsesItem struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	Content json.RawMessage
}

func (it *responsesItem) UnmarshalJSON(b []byte) error {
	var raw struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*it = responsesItem{Type: raw.Type, Role: raw.Role, Content: raw.Content}
	if it.Type == "" && it.Role != "" {
		it.Type = "message"
	}
	return nil
}

// text joins the text parts of a message's content (a string or parts).
func (it responsesItem) text() string {
	var s string
	if json.Unmarshal(it.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(it.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
		b.WriteString("\n")
	}
	return b.String()
}

// codexContext marks user messages that codex writes itself.
var codexContext = []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<user_shell_command>", "<turn_aborted>"}

func isCodexContext(t string) bool {
	for _, p := range codexContext {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

func (responsesAPI) parse(_ *http.Request, body []byte) (*request, error) {
	var in struct {
		Model        string          `json:"model"`
		Stream       bool            `json:"stream"`
		Instructions string          `json:"instructions"`
		Input        json.RawMessage `json:"input"`
		Tools        []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, err
	}
	req := &request{API: APIResponses, Model: in.Model, Stream: in.Stream, size: len(body)}
	var items []responsesItem
	var prompt string
	if json.Unmarshal(in.Input, &prompt) == nil {
		items = []responsesItem{{Type: "message", Role: "user", Content: in.Input}}
	} else if err := json.Unmarshal(in.Input, &items); err != nil {
		return nil, err
	}
	texts := []string{in.Instructions}
	var tc turnCounter
	for _, it := range items {
		switch {
		case it.Type == "message" && it.Role == "user":
			t := humanText(it.text())
			texts = append(texts, it.text())
			if t != "" && !isCodexContext(t) {
				req.UserText = t
				tc.human()
			}
		case it.Type == "message" && it.Role == "assistant",
			it.Type == "reasoning", strings.HasSuffix(it.Type, "_call"):
			tc.assistant()
		default:
			tc.other()
		}
	}
	req.Turn = tc.turns
	for _, t := range in.Tools {
		name := t.Name
		if name == "" {
			name = t.Type // local_shell, web_search
		}
		req.Tools = append(req.Tools, name)
	}
	req.Cwd = findCwd(texts...)
	return req, nil
}

// toolSearch is the Responses API's tool search: a call of that name is
// sent as a tool_search_call.
const toolSearch = "tool_search"

// items is the answer's output: reasoning, the message, then the calls.
func (responsesAPI) items(a *answer) []map[string]any {
	var out []map[string]any
	if a.Thinking != "" {
		out = append(out, map[string]any{"type": "reasoning", "id": newID("rs_"), "encrypted_content": newID("enc_"),
			"summary": []any{map[string]any{"type": "summary_text", "text": a.Thinking}}})
	}
	if a.Text != "" {
		out = append(out, map[string]any{"type": "message", "id": newID("msg_"), "role": "assistant",
			"status": "completed", "content": []any{map[string]any{"type": "output_text", "text": a.Text, "annotations": []any{}}}})
	}
	for _, c := range a.Calls {
		args, _ := json.Marshal(c.Args)
		if c.Name == toolSearch {
			// The API's own tool, run by the client (Codex searches its
			// deferred MCP tools): its call is an item of its own.
			out = append(out, map[string]any{"type": "tool_search_call", "id": newID("ts_"), "call_id": newID("call_"),
				"execution": "client", "arguments": c.Args, "status": "completed"})
			continue
		}
		item := map[string]any{"type": "function_call", "id": newID("fc_"), "call_id": newID("call_"),
			"name": c.Name, "arguments": string(args), "status": "completed"}
		if c.Namespace != "" {
			item["namespace"] = c.Namespace
		}
		out = append(out, item)
	}
	return out
}

func (x responsesAPI) write(ctx context.Context, w http.ResponseWriter, req *request, a *answer) error {
	id := newID("resp_")
	items := x.items(a)
	resp := func(status string, output []map[string]any) map[string]any {
		r := map[string]any{"id": id, "object": "response", "created_at": time.Now().Unix(),
			"status": status, "model": req.Model, "output": output}
		if status == "completed" {
			r["usage"] = map[string]any{
				"input_tokens": a.InTokens, "input_tokens_details": map[string]any{"cached_tokens": 0},
				"output_tokens": a.OutTokens, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
				"total_tokens": a.InTokens + a.OutTokens}
		}
		return r
	}
	if !req.Stream {
		writeBody(w, a, resp("completed", items))
		return nil
	}
	s := newSSE(ctx, w, a)
	if a.Truncated {
		s.cutAfter = 3
	}
	seq := 0
	send := func(typ string, fields map[string]any) error {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		return s.send(typ, fields)
	}
	if err := send("response.created", map[string]any{"response": resp("in_progress", []map[string]any{})}); err != nil {
		return err
	}
	for i, it := range items {
		if it["type"] == "reasoning" {
			// added with an empty summary, as OpenAI does, then streamed
			added := map[string]any{"type": "reasoning", "id": it["id"], "summary": []any{}}
			if err := send("response.output_item.added", map[string]any{"output_index": i, "item": added}); err != nil {
				return err
			}
			for _, c := range chunks(a.Thinking, 2) {
				if err := send("response.reasoning_summary_text.delta", map[string]any{"item_id": it["id"],
					"output_index": i, "summary_index": 0, "delta": c}); err != nil {
					return err
				}
			}
			if err := send("response.output_item.done", map[string]any{"output_index": i, "item": it}); err != nil {
				return err
			}
			continue
		}
		if err := send("response.output_item.added", map[string]any{"output_index": i, "item": it}); err != nil {
			return err
		}
		if it["type"] == "message" {
			for _, c := range chunks(a.Text, 3) {
				if err := send("response.output_text.delta", map[string]any{"item_id": it["id"],
					"output_index": i, "content_index": 0, "delta": c}); err != nil {
					return err
				}
			}
		}
		if err := send("response.output_item.done", map[string]any{"output_index": i, "item": it}); err != nil {
			return err
		}
	}
	return send("response.completed", map[string]any{"response": resp("completed", items)})
}

func (responsesAPI) writeError(w http.ResponseWriter, e apiError) {
	writeOpenAIError(w, e)
}

// writeOpenAIError writes OpenAI's error body, shared by both OpenAI APIs.
func writeOpenAIError(w http.ResponseWriter, e apiError) {
	typ, code := "server_error", "server_error"
	switch {
	case e.Kind == ErrRateLimit || e.Status == 429:
		typ, code = "requests", "rate_limit_exceeded"
	case e.Kind == ErrOverloaded:
		e.Status, typ, code = 503, "server_error", "server_is_overloaded"
	case e.Status == 400:
		typ, code = "invalid_request_error", "invalid_request_error"
	case e.Status == 401:
		typ, code = "invalid_request_error", "invalid_api_key"
	case e.Status == 404:
		typ, code = "invalid_request_error", "model_not_found"
	}
	e.retryDelay(w)
	writeJSON(w, e.Status, map[string]any{"error": map[string]any{
		"message": e.Message, "type": typ, "param": nil, "code": code}})
}
