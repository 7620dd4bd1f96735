package gemini

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/llm/httpc"
	"github.com/csa-dev/csa/internal/csaagent/llm/sse"
)

type chunk struct {
	Candidates []struct {
		Content      content `json:"content"`
		FinishReason string  `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata *struct {
		PromptTokenCount        int64 `json:"promptTokenCount"`
		CandidatesTokenCount    int64 `json:"candidatesTokenCount"`
		ThoughtsTokenCount      int64 `json:"thoughtsTokenCount"`
		CachedContentTokenCount int64 `json:"cachedContentTokenCount"`
	} `json:"usageMetadata"`
	ModelVersion string `json:"modelVersion"`
	Error        *struct {
		Code    json.RawMessage `json:"code"`
		Status  string          `json:"status"`
		Message string          `json:"message"`
	} `json:"error"`
}

// readStream assembles the answer. Each chunk is a partial response;
// consecutive text (or thought) parts extend one block. The stream has no
// end event: a chunk with a finishReason ends it.
func readStream(provider string, r *sse.Reader, emit func(llm.Delta)) (*llm.Response, error) {
	out := &llm.Response{Message: llm.Message{Role: llm.Assistant}, Stop: llm.StopEnd}
	blocks := &out.Message.Content
	finished := false
	for {
		raw, err := r.Next()
		if err == io.EOF {
			if !finished {
				return nil, fmt.Errorf("%s: %w", provider, llm.ErrTruncated)
			}
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", provider, err)
		}
		var c chunk
		if err := json.Unmarshal([]byte(raw.Data), &c); err != nil {
			return nil, fmt.Errorf("%s: bad chunk: %w", provider, err)
		}
		if e := c.Error; e != nil {
			return nil, &llm.APIError{Provider: provider, Type: httpc.ErrorType("", e.Code, e.Status), Message: e.Message,
				Overloaded: e.Status == "UNAVAILABLE"}
		}
		if c.ModelVersion != "" {
			out.Model = c.ModelVersion
		}
		if u := c.UsageMetadata; u != nil {
			cached := u.CachedContentTokenCount
			out.Usage = llm.Usage{InputTokens: u.PromptTokenCount - cached,
				OutputTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount, CacheReadTokens: cached}
		}
		if len(c.Candidates) == 0 {
			continue
		}
		cand := c.Candidates[0]
		for _, p := range cand.Content.Parts {
			addPart(blocks, p, emit)
		}
		switch cand.FinishReason {
		case "":
		case "MAX_TOKENS":
			finished, out.Stop = true, llm.StopMaxTokens
		default:
			finished = true
		}
	}
	if len(out.Message.ToolUses()) > 0 {
		out.Stop = llm.StopToolUse
	}
	return out, nil
}

// addPart adds a part to the blocks; a signature stays with its part's
// block, where it must go back.
func addPart(blocks *[]llm.Block, p part, emit func(llm.Delta)) {
	last := func(typ string) *llm.Block {
		if n := len(*blocks); n > 0 && (*blocks)[n-1].Type == typ {
			return &(*blocks)[n-1]
		}
		*blocks = append(*blocks, llm.Block{Type: typ})
		return &(*blocks)[len(*blocks)-1]
	}
	switch {
	case p.FunctionCall != nil:
		in := p.FunctionCall.Args
		if len(in) == 0 {
			in = json.RawMessage(`{}`)
		}
		b := llm.Block{Type: llm.BlockToolUse, ID: newCallID(), Name: p.FunctionCall.Name, Input: in, Signature: p.ThoughtSignature}
		*blocks = append(*blocks, b)
		emit(llm.Delta{Kind: llm.DeltaToolUse, ID: b.ID, Name: b.Name})
		return
	case p.Thought:
		b := last(llm.BlockThinking)
		b.Text += p.Text
		if p.Text != "" {
			emit(llm.Delta{Kind: llm.DeltaThinking, Text: p.Text})
		}
		if p.ThoughtSignature != "" {
			b.Signature = p.ThoughtSignature
		}
	case p.Text != "" || p.ThoughtSignature != "":
		b := last(llm.BlockText)
		b.Text += p.Text
		if p.Text != "" {
			emit(llm.Delta{Kind: llm.DeltaText, Text: p.Text})
		}
		if p.ThoughtSignature != "" {
			b.Signature = p.ThoughtSignature
		}
	}
}

// newCallID names a call: Gemini's calls have no IDs, and llm's results
// refer to their call by one.
func newCallID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "call_" + hex.EncodeToString(b)
}
