package openai

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/llm/httpc"
	"github.com/csa-dev/csa/internal/csaagent/llm/sse"
)

// responsesEvent is any streamed event; only its type's fields are set.
type responsesEvent struct {
	Type        string           `json:"type"`
	OutputIndex int              `json:"output_index"`
	Delta       string           `json:"delta"`
	Item        responsesItem    `json:"item"`
	Response    responsesPayload `json:"response"`
	Code        json.RawMessage  `json:"code"` // event "error"
	Message     string           `json:"message"`
}

type responsesItem struct {
	Type             string `json:"type"`
	ID               string `json:"id"`
	CallID           string `json:"call_id"`
	Name             string `json:"name"`
	Arguments        string `json:"arguments"`
	EncryptedContent string `json:"encrypted_content"`
	Summary          []struct {
		Text string `json:"text"`
	} `json:"summary"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

type responsesPayload struct {
	Model string `json:"model"`
	Usage *struct {
		InputTokens        int64 `json:"input_tokens"`
		OutputTokens       int64 `json:"output_tokens"`
		InputTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"input_tokens_details"`
	} `json:"usage"`
	Error *struct {
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	} `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
}

// readResponses assembles the answer from the output items' events.
func readResponses(provider string, r *sse.Reader, emit func(llm.Delta)) (*llm.Response, error) {
	out := &llm.Response{Message: llm.Message{Role: llm.Assistant}, Stop: llm.StopEnd}
	items := map[int]*llm.Block{}
	for {
		raw, err := next(provider, r)
		if err == io.EOF {
			return nil, truncated(provider)
		}
		if err != nil {
			return nil, err
		}
		var ev responsesEvent
		if err := json.Unmarshal([]byte(raw.Data), &ev); err != nil {
			return nil, fmt.Errorf("%s: bad event %q: %w", provider, raw.Name, err)
		}
		b := items[ev.OutputIndex]
		switch ev.Type {
		case "response.created":
			out.Model = ev.Response.Model
		case "response.output_item.added":
			b = &llm.Block{}
			items[ev.OutputIndex] = b
			fillItem(b, ev.Item)
			if b.Type == llm.BlockToolUse {
				emit(llm.Delta{Kind: llm.DeltaToolUse, ID: b.ID, Name: b.Name})
			}
		case "response.output_text.delta":
			if b != nil {
				b.Text += ev.Delta
				emit(llm.Delta{Kind: llm.DeltaText, Text: ev.Delta})
			}
		case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
			if b != nil {
				b.Text += ev.Delta
				emit(llm.Delta{Kind: llm.DeltaThinking, Text: ev.Delta})
			}
		case "response.function_call_arguments.delta":
			if b != nil {
				b.Input = append(b.Input, ev.Delta...)
			}
		case "response.output_item.done":
			// the finished item is the record; deltas were for display
			if b == nil {
				b = &llm.Block{}
				items[ev.OutputIndex] = b
			}
			fillItem(b, ev.Item)
		case "response.completed", "response.incomplete":
			finish(out, items, ev.Response)
			if ev.Type == "response.incomplete" {
				out.Stop = llm.StopMaxTokens
			}
			return out, nil
		case "response.failed":
			e := &llm.APIError{Provider: provider, Message: "response failed"}
			if er := ev.Response.Error; er != nil {
				e.Type, e.Message = httpc.ErrorType("", er.Code, ""), er.Message
			}
			return nil, e
		case "error":
			return nil, &llm.APIError{Provider: provider, Type: httpc.ErrorType("", ev.Code, ""), Message: ev.Message}
		}
	}
}

// fillItem sets b from an output item, keeping streamed text when the
// item carries none.
func fillItem(b *llm.Block, it responsesItem) {
	switch it.Type {
	case "message":
		b.Type = llm.BlockText
		var text string
		for _, c := range it.Content {
			text += c.Text
		}
		if text != "" {
			b.Text = text
		}
	case "reasoning":
		b.Type, b.ID = llm.BlockThinking, it.ID
		var text string
		for _, s := range it.Summary {
			text += s.Text
		}
		if text != "" {
			b.Text = text
		}
		if it.EncryptedContent != "" {
			b.Signature = it.EncryptedContent
		}
	case "function_call":
		b.Type, b.ID, b.Name = llm.BlockToolUse, it.CallID, it.Name
		if it.Arguments != "" {
			b.Input = json.RawMessage(it.Arguments)
		}
	}
}

func finish(out *llm.Response, items map[int]*llm.Block, resp responsesPayload) {
	if resp.Model != "" {
		out.Model = resp.Model
	}
	if u := resp.Usage; u != nil {
		cached := u.InputTokensDetails.CachedTokens
		out.Usage = llm.Usage{InputTokens: u.InputTokens - cached, OutputTokens: u.OutputTokens, CacheReadTokens: cached}
	}
	idx := make([]int, 0, len(items))
	for i := range items {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		b := items[i]
		switch b.Type {
		case llm.BlockToolUse:
			b.Input = args(b.Input)
			out.Stop = llm.StopToolUse
		case "":
			continue // an item kind this client does not keep (web search...)
		}
		out.Message.Content = append(out.Message.Content, *b)
	}
}
