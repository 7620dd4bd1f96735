package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/llm/sse"
)

// event is any streamed event; only the fields of its type are set.
type event struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message struct {
		Model string    `json:"model"`
		Usage wireUsage `json:"usage"`
	} `json:"message"`
	ContentBlock wireBlock `json:"content_block"`
	Delta        struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *wireUsage `json:"usage"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

type wireUsage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_input_tokens"`
	CacheWriteTokens int64 `json:"cache_creation_input_tokens"`
}

// readStream assembles the answer from the events.
func readStream(provider string, r *sse.Reader, onDelta func(llm.Delta)) (*llm.Response, error) {
	emit := func(d llm.Delta) {
		if onDelta != nil {
			onDelta(d)
		}
	}
	out := &llm.Response{Message: llm.Message{Role: llm.Assistant}, Stop: llm.StopEnd}
	blocks := map[int]*llm.Block{}
	var order []int
	partial := map[int]json.RawMessage{}
	for {
		raw, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: %w", provider, llm.ErrTruncated)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", provider, err)
		}
		var ev event
		if err := json.Unmarshal([]byte(raw.Data), &ev); err != nil {
			return nil, fmt.Errorf("%s: bad event %q: %w", provider, raw.Name, err)
		}
		switch ev.Type {
		case "message_start":
			out.Model = ev.Message.Model
			out.Usage = ev.Message.Usage.toLLM()
		case "content_block_start":
			cb := ev.ContentBlock
			b := &llm.Block{Type: cb.Type, Text: cb.Text + cb.Thinking, Signature: cb.Signature, ID: cb.ID, Name: cb.Name, Input: cb.Input}
			blocks[ev.Index] = b
			order = append(order, ev.Index)
			if b.Type == llm.BlockToolUse {
				emit(llm.Delta{Kind: llm.DeltaToolUse, ID: b.ID, Name: b.Name})
			}
		case "content_block_delta":
			b := blocks[ev.Index]
			if b == nil {
				return nil, fmt.Errorf("%s: delta for unknown block %d", provider, ev.Index)
			}
			switch ev.Delta.Type {
			case "text_delta":
				b.Text += ev.Delta.Text
				emit(llm.Delta{Kind: llm.DeltaText, Text: ev.Delta.Text})
			case "thinking_delta":
				b.Text += ev.Delta.Thinking
				emit(llm.Delta{Kind: llm.DeltaThinking, Text: ev.Delta.Thinking})
			case "signature_delta":
				b.Signature += ev.Delta.Signature
			case "input_json_delta":
				partial[ev.Index] = append(partial[ev.Index], ev.Delta.PartialJSON...)
			}
		case "content_block_stop":
			if b := blocks[ev.Index]; b != nil && b.Type == llm.BlockToolUse {
				if p, ok := partial[ev.Index]; ok {
					b.Input = p
				}
				if len(b.Input) == 0 {
					b.Input = json.RawMessage(`{}`)
				}
			}
		case "message_delta":
			if ev.Delta.StopReason != "" {
				out.Stop = llm.StopReason(ev.Delta.StopReason)
			}
			if ev.Usage != nil {
				// cumulative: output always, input when the API restates it
				out.Usage.OutputTokens = ev.Usage.OutputTokens
				if ev.Usage.InputTokens > 0 {
					out.Usage.InputTokens = ev.Usage.InputTokens
				}
			}
		case "message_stop":
			for _, i := range order {
				out.Message.Content = append(out.Message.Content, *blocks[i])
			}
			return out, nil
		case "error":
			typ := ev.Error.Type
			return nil, &llm.APIError{Provider: provider, Type: typ, Message: ev.Error.Message,
				Overloaded: typ == "overloaded_error"}
		}
	}
}

func (u wireUsage) toLLM() llm.Usage {
	return llm.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens}
}
