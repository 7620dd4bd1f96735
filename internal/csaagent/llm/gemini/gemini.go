// Package gemini is a thin client of the Gemini API's
// streamGenerateContent, read as server-sent events.
package gemini

import (
	"context"
	"net/url"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/llm/httpc"
	"github.com/csa-dev/csa/internal/csaagent/llm/sse"
)

// DefaultBaseURL is the public API (Google AI Studio keys).
const DefaultBaseURL = "https://generativelanguage.googleapis.com"

// Provider streams Gemini answers.
type Provider struct {
	name string
	ep   httpc.Endpoint
}

// New makes a provider reported under name ("gemini" if empty).
func New(name string, ep httpc.Endpoint) *Provider {
	if name == "" {
		name = "gemini"
	}
	if ep.BaseURL == "" {
		ep.BaseURL = DefaultBaseURL
	}
	return &Provider{name: name, ep: ep}
}

func (p *Provider) Name() string { return p.name }

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req *llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	headers := map[string]string{}
	if p.ep.APIKey != "" {
		headers["x-goog-api-key"] = p.ep.APIKey
	}
	model := strings.TrimPrefix(req.Model, "models/")
	u := p.ep.URL("/v1beta/models/" + url.PathEscape(model) + ":streamGenerateContent?alt=sse")
	resp, err := httpc.Post(ctx, p.ep, p.name, u, headers, buildRequest(req))
	if err != nil {
		return nil, err
	}
	r := sse.NewReader(resp.Body, p.ep.Timeouts.Stall)
	defer r.Close()
	emit := onDelta
	if emit == nil {
		emit = func(llm.Delta) {}
	}
	out, err := readStream(p.name, r, emit)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if out != nil && out.Model == "" {
		out.Model = model
	}
	return out, err
}
