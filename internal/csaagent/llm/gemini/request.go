package gemini

import (
	"encoding/json"

	"github.com/csa-dev/csa/internal/csaagent/llm"
)

// Thinking budgets per effort, as for Anthropic.
var budgets = map[string]int{"low": 2048, "medium": 8192, "high": 24576}

type part struct {
	Text             string            `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	ThoughtSignature string            `json:"thoughtSignature,omitempty"`
	FunctionCall     *functionCall     `json:"functionCall,omitempty"`
	FunctionResponse *functionResponse `json:"functionResponse,omitempty"`
}

type functionCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

type functionResponse struct {
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}

type content struct {
	Role  string `json:"role,omitempty"`
	Parts []part `json:"parts"`
}

type wireRequest struct {
	Contents          []content        `json:"contents"`
	SystemInstruction *content         `json:"systemInstruction,omitempty"`
	Tools             []map[string]any `json:"tools,omitempty"`
	GenerationConfig  map[string]any   `json:"generationConfig,omitempty"`
}

func buildRequest(req *llm.Request) *wireRequest {
	w := &wireRequest{Contents: []content{}}
	if req.System != "" {
		w.SystemInstruction = &content{Parts: []part{{Text: req.System}}}
	}
	if len(req.Tools) > 0 {
		var decls []map[string]any
		for _, t := range req.Tools {
			// parametersJsonSchema takes full JSON Schema, unlike parameters
			decls = append(decls, map[string]any{"name": t.Name, "description": t.Description, "parametersJsonSchema": t.Schema})
		}
		w.Tools = []map[string]any{{"functionDeclarations": decls}}
	}
	gc := map[string]any{}
	if req.MaxTokens > 0 {
		gc["maxOutputTokens"] = req.MaxTokens
	}
	if b, ok := budgets[req.Effort]; ok {
		gc["thinkingConfig"] = map[string]any{"thinkingBudget": b, "includeThoughts": true}
	}
	if len(gc) > 0 {
		w.GenerationConfig = gc
	}
	// Gemini's function responses name the function, not the call: find
	// the name from the IDs this client gave the calls.
	names := map[string]string{}
	for _, m := range req.Messages {
		for _, b := range m.ToolUses() {
			names[b.ID] = b.Name
		}
	}
	for _, m := range req.Messages {
		c := content{Role: "user"}
		if m.Role == llm.Assistant {
			c.Role = "model"
		}
		for _, b := range m.Content {
			if p, ok := toPart(b, names); ok {
				c.Parts = append(c.Parts, p)
			}
		}
		if len(c.Parts) > 0 {
			w.Contents = append(w.Contents, c)
		}
	}
	return w
}

func toPart(b llm.Block, names map[string]string) (part, bool) {
	switch b.Type {
	case llm.BlockText:
		return part{Text: b.Text, ThoughtSignature: b.Signature}, b.Text != ""
	case llm.BlockThinking:
		// only signed thoughts matter to the model; others are dropped
		return part{Text: b.Text, Thought: true, ThoughtSignature: b.Signature}, b.Signature != ""
	case llm.BlockToolUse:
		in := b.Input
		if len(in) == 0 {
			in = json.RawMessage(`{}`)
		}
		return part{FunctionCall: &functionCall{Name: b.Name, Args: in}, ThoughtSignature: b.Signature}, true
	case llm.BlockToolResult:
		key := "output"
		if b.IsError {
			key = "error"
		}
		fr := &functionResponse{Name: names[b.ToolUseID], Response: map[string]any{key: b.Content}}
		return part{FunctionResponse: fr}, true
	}
	return part{}, false
}
