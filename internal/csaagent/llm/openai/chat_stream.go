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

type chatChunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Delta struct {
			Content          string `json:"content"`
			ReasoningContent string `json:"reasoning_content"` // vLLM, llama.cpp, DeepSeek
			Reasoning        string `json:"reasoning"`         // OpenRouter, Ollama
			ToolCalls        []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int64 `json:"prompt_tokens"`
		CompletionTokens    int64 `json:"completion_tokens"`
		PromptTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	// Some servers (OpenRouter) report a failure inside the stream.
	Error *struct {
		Code    json.RawMessage `json:"code"`
		Type    string          `json:"type"`
		Message string          `json:"message"`
	} `json:"error"`
}

// readChat assembles the answer from the chunks; tool calls arrive in
// pieces keyed by index.
func readChat(provider string, r *sse.Reader, emit func(llm.Delta)) (*llm.Response, error) {
	out := &llm.Response{Message: llm.Message{Role: llm.Assistant}, Stop: llm.StopEnd}
	var text, thinking string
	calls := map[int]*llm.Block{}
	finished := false
	for {
		raw, err := next(provider, r)
		if err == io.EOF || (err == nil && raw.Data == "[DONE]") {
			if !finished {
				return nil, truncated(provider)
			}
			break
		}
		if err != nil {
			return nil, err
		}
		var c chatChunk
		if err := json.Unmarshal([]byte(raw.Data), &c); err != nil {
			return nil, fmt.Errorf("%s: bad chunk: %w", provider, err)
		}
		if e := c.Error; e != nil {
			return nil, &llm.APIError{Provider: provider, Type: httpc.ErrorType(e.Type, e.Code, ""), Message: e.Message}
		}
		if c.Model != "" {
			out.Model = c.Model
		}
		if u := c.Usage; u != nil {
			cached := u.PromptTokensDetails.CachedTokens
			out.Usage = llm.Usage{InputTokens: u.PromptTokens - cached, OutputTokens: u.CompletionTokens, CacheReadTokens: cached}
		}
		for _, ch := range c.Choices {
			d := ch.Delta
			if t := d.ReasoningContent + d.Reasoning; t != "" {
				thinking += t
				emit(llm.Delta{Kind: llm.DeltaThinking, Text: t})
			}
			if d.Content != "" {
				text += d.Content
				emit(llm.Delta{Kind: llm.DeltaText, Text: d.Content})
			}
			for _, tc := range d.ToolCalls {
				b := calls[tc.Index]
				if b == nil {
					b = &llm.Block{Type: llm.BlockToolUse}
					calls[tc.Index] = b
				}
				if tc.ID != "" {
					b.ID = tc.ID
				}
				if tc.Function.Name != "" && b.Name == "" {
					b.Name = tc.Function.Name
					emit(llm.Delta{Kind: llm.DeltaToolUse, ID: b.ID, Name: b.Name})
				}
				b.Input = append(b.Input, tc.Function.Arguments...)
			}
			switch ch.FinishReason {
			case "":
			case "length":
				finished, out.Stop = true, llm.StopMaxTokens
			default:
				finished = true
			}
		}
	}
	if thinking != "" {
		out.Message.Content = append(out.Message.Content, llm.Block{Type: llm.BlockThinking, Text: thinking})
	}
	if text != "" {
		out.Message.Content = append(out.Message.Content, llm.Block{Type: llm.BlockText, Text: text})
	}
	idx := make([]int, 0, len(calls))
	for i := range calls {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for n, i := range idx {
		b := calls[i]
		if b.ID == "" {
			b.ID = fmt.Sprintf("call_%d", n) // some local servers send none
		}
		b.Input = args(b.Input)
		out.Message.Content = append(out.Message.Content, *b)
		out.Stop = llm.StopToolUse
	}
	return out, nil
}
