package openai_test

import (
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/llm/httpc"
	"github.com/csa-dev/csa/internal/csaagent/llm/llmtest"
	"github.com/csa-dev/csa/internal/csaagent/llm/openai"
)

func TestResponsesConformance(t *testing.T) {
	llmtest.Run(t, func(ep httpc.Endpoint) llm.Provider {
		ep.BaseURL += "/v1"
		return openai.NewResponses("", ep)
	}, llmtest.Features{IDsOnWire: true, Signatures: true})
}

func TestChatConformance(t *testing.T) {
	llmtest.Run(t, func(ep httpc.Endpoint) llm.Provider {
		ep.BaseURL += "/v1"
		return openai.NewChat("", ep)
	}, llmtest.Features{IDsOnWire: true})
}
