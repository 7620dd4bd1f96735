package modelserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// geminiAPI speaks the Gemini generateContent API (Gemini CLI).
type geminiAPI struct{}

type geminiPart struct {
	Text             string          `json:"text"`
	Thought          bool            `json:"thought"`
	FunctionCall     json.RawMessage `json:"functionCall"`
	FunctionResponse json.RawMessage `json:"functionResponse"`
}

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

func (c geminiContent) text() string {
	var b strings.Builder
	for _, p := range c.Parts {
		if p.Text != "" && !p.Thought {
			b.WriteString(p.Text)
			b.WriteString("\n")
		}
	}
	return b.String()
}

func (c geminiContent) hasResponse() bool {
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			return true
		}
	}
	return false
}

// geminiModel takes the model and the method from /v1beta/models/<m>:<method>.
func geminiModel(path string) (model, method string) {
	rest := path[strings.LastIndex(path, "/")+1:]
	model, method, _ = strings.Cut(rest, ":")
	return model, method
}

func (geminiAPI) parse(r *http.Request, body []byte) (*request, error) {
	var in struct {
		Contents          []geminiContent `json:"contents"`
		SystemInstruction *geminiContent  `json:"systemInstruction"`
		Tools             []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
		GenerationConfig struct {
			ResponseMimeType   string         `json:"responseMimeType"`
			ResponseSchema     map[string]any `json:"responseSchema"`
			ResponseJSONSchema map[string]any `json:"responseJsonSchema"`
		} `json:"generationConfig"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, err
	}
	model, method := geminiModel(r.URL.Path)
	req := &request{API: APIGemini, Model: model, Stream: method == "streamGenerateContent", size: len(body)}
	var texts []string
	if in.SystemInstruction != nil {
		texts = append(texts, in.SystemInstruction.text())
	}
	var tc turnCounter
	for _, c := range in.Contents {
		switch {
		case c.Role == "model":
			tc.assistant()
		case c.hasResponse():
			tc.other()
		default:
			t := humanText(c.text())
			texts = append(texts, c.text())
			if t != "" {
				req.UserText = t
				tc.human()
			}
		}
	}
	req.Turn = tc.turns
	for _, t := range in.Tools {
		for _, f := range t.FunctionDeclarations {
			req.Tools = append(req.Tools, f.Name)
		}
	}
	req.Cwd = findCwd(texts...)
	// Gemini CLI asks side questions (the model router, the next-speaker
	// check) as JSON-only requests: answer them from their schema.
	if in.GenerationConfig.ResponseMimeType == "application/json" {
		req.Utility = "json"
		req.schema = in.GenerationConfig.ResponseJSONSchema
		if req.schema == nil {
			req.schema = in.GenerationConfig.ResponseSchema
		}
		if req.schema != nil {
			if props, ok := req.schema["properties"].(map[string]any); ok && props["complexity_score"] != nil {
				req.Utility = "router"
			}
		}
	}
	return req, nil
}

func (geminiAPI) chunk(req *request, parts []map[string]any, finish string, a *answer) map[string]any {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	c := map[string]any{"candidates": []any{cand}, "modelVersion": req.Model, "responseId": newID("")}
	if finish != "" {
		cand["finishReason"] = finish
		c["usageMetadata"] = map[string]any{"promptTokenCount": a.InTokens,
			"candidatesTokenCount": a.OutTokens, "totalTokenCount": a.InTokens + a.OutTokens}
	}
	return c
}

// parts is the answer's parts: a thought, the text, then the calls. The
// thought signature rides on the first call, as Gemini sends it, or on the
// thought when there is no call.
func (geminiAPI) parts(a *answer) (thought map[string]any, text string, calls []map[string]any) {
	sig := newID("sig_")
	if a.Thinking != "" {
		thought = map[string]any{"text": a.Thinking, "thought": true}
	}
	for _, c := range a.Calls {
		calls = append(calls, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": c.Args}})
	}
	switch {
	case a.Thinking == "":
	case len(calls) > 0:
		calls[0]["thoughtSignature"] = sig
	default:
		thought["thoughtSignature"] = sig
	}
	return thought, a.Text, calls
}

func (x geminiAPI) write(ctx context.Context, w http.ResponseWriter, req *request, a *answer) error {
	thought, text, calls := x.parts(a)
	if !req.Stream {
		var parts []map[string]any
		if thought != nil {
			parts = append(parts, thought)
		}
		if text != "" {
			parts = append(parts, map[string]any{"text": text})
		}
		parts = append(parts, calls...)
		writeBody(w, a, x.chunk(req, parts, "STOP", a))
		return nil
	}
	s := newSSE(ctx, w, a)
	s.crlf, s.breakAt = true, 0
	if a.Truncated {
		s.cutAfter = 1
	}
	var pieces [][]map[string]any
	if thought != nil {
		pieces = append(pieces, []map[string]any{thought})
	}
	if text != "" {
		for _, c := range chunks(text, 3) {
			pieces = append(pieces, []map[string]any{{"text": c}})
		}
	}
	if len(calls) > 0 {
		pieces = append(pieces, calls)
	}
	for i, p := range pieces {
		finish := ""
		if i == len(pieces)-1 {
			finish = "STOP"
		}
		if err := s.send("", x.chunk(req, p, finish, a)); err != nil {
			return err
		}
	}
	return nil
}

func (geminiAPI) writeError(w http.ResponseWriter, e apiError) {
	status := "INTERNAL"
	switch {
	case e.Kind == ErrRateLimit || e.Status == 429:
		status = "RESOURCE_EXHAUSTED"
	case e.Kind == ErrOverloaded:
		e.Status, status = 503, "UNAVAILABLE"
	case e.Status == 400:
		status = "INVALID_ARGUMENT"
	case e.Status == 401:
		status = "UNAUTHENTICATED"
	case e.Status == 403:
		status = "PERMISSION_DENIED"
	case e.Status == 404:
		status = "NOT_FOUND"
	case e.Status == 503:
		status = "UNAVAILABLE"
	}
	body := map[string]any{"code": e.Status, "message": e.Message, "status": status}
	if d := e.retryDelay(w); d > 0 {
		body["details"] = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo",
			"retryDelay": strconv.FormatFloat(d, 'f', -1, 64) + "s"}}
	}
	writeJSON(w, e.Status, map[string]any{"error": body})
}

// fillSchema builds a small value that satisfies a JSON schema.
func fillSchema(schema map[string]any) any {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	switch strings.ToLower(typeOf(schema)) {
	case "object":
		out := map[string]any{}
		props, _ := schema["properties"].(map[string]any)
		for k, v := range props {
			if sub, ok := v.(map[string]any); ok {
				out[k] = fillSchema(sub)
			}
		}
		return out
	case "array":
		return []any{}
	case "integer", "number":
		return 1
	case "boolean":
		return false
	default:
		return "scripted"
	}
}

func typeOf(schema map[string]any) string {
	switch t := schema["type"].(type) {
	case string:
		return t
	case []any:
		if len(t) > 0 {
			s, _ := t[0].(string)
			return s
		}
	}
	return ""
}
