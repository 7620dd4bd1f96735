// Package openai holds thin clients of OpenAI's two model APIs: Responses
// (OpenAI itself) and Chat Completions (any compatible server: vLLM,
// llama.cpp's server, Ollama, OpenRouter).
package openai

import (
	"context"
	"fmt"
	"io"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/llm/httpc"
	"github.com/csa-dev/csa/internal/csaagent/llm/sse"
)

// DefaultBaseURL is OpenAI's API; paths are joined to it.
const DefaultBaseURL = "https://api.openai.com/v1"

// post sends body to path and returns the event reader of the answer.
func post(ctx context.Context, ep httpc.Endpoint, provider, path string, body any) (*sse.Reader, error) {
	headers := map[string]string{}
	if ep.APIKey != "" {
		headers["Authorization"] = "Bearer " + ep.APIKey
	}
	resp, err := httpc.Post(ctx, ep, provider, ep.URL(path), headers, body)
	if err != nil {
		return nil, err
	}
	return sse.NewReader(resp.Body, ep.Timeouts.Stall), nil
}

// next reads an event, naming the provider in errors; a clean end of
// stream is io.EOF for the caller to judge.
func next(provider string, r *sse.Reader) (sse.Event, error) {
	ev, err := r.Next()
	if err != nil && err != io.EOF {
		return ev, fmt.Errorf("%s: %w", provider, err)
	}
	return ev, err
}

// streamErr prefers the context's error: a cancelled call is not a
// transport failure.
func streamErr(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

func truncated(provider string) error {
	return fmt.Errorf("%s: %w", provider, llm.ErrTruncated)
}

func emitter(onDelta func(llm.Delta)) func(llm.Delta) {
	if onDelta == nil {
		return func(llm.Delta) {}
	}
	return onDelta
}
