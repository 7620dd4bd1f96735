// Package anthropic is a thin client of the Anthropic Messages API,
// streamed. llm's types already have its shapes, so little is translated.
package anthropic

import (
	"context"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/llm/httpc"
	"github.com/csa-dev/csa/internal/csaagent/llm/sse"
)

// DefaultBaseURL is the public API.
const DefaultBaseURL = "https://api.anthropic.com"

// Version is the anthropic-version header the client speaks.
const Version = "2023-06-01"

// Provider streams Messages API answers.
type Provider struct {
	name string
	ep   httpc.Endpoint
}

// New makes a provider reported under name ("anthropic" if empty).
func New(name string, ep httpc.Endpoint) *Provider {
	if name == "" {
		name = "anthropic"
	}
	if ep.BaseURL == "" {
		ep.BaseURL = DefaultBaseURL
	}
	return &Provider{name: name, ep: ep}
}

func (p *Provider) Name() string { return p.name }

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req *llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	headers := map[string]string{"anthropic-version": Version}
	if p.ep.APIKey != "" {
		headers["x-api-key"] = p.ep.APIKey
	}
	resp, err := httpc.Post(ctx, p.ep, p.name, p.ep.URL("/v1/messages"), headers, buildRequest(req))
	if err != nil {
		return nil, err
	}
	r := sse.NewReader(resp.Body, p.ep.Timeouts.Stall)
	defer r.Close()
	out, err := readStream(p.name, r, onDelta)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return out, err
}
