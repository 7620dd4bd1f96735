package anthropic_test

import (
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/llm/anthropic"
	"github.com/csa-dev/csa/internal/csaagent/llm/httpc"
	"github.com/csa-dev/csa/internal/csaagent/llm/llmtest"
)

func TestConformance(t *testing.T) {
	llmtest.Run(t, func(ep httpc.Endpoint) llm.Provider { return anthropic.New("", ep) },
		llmtest.Features{IDsOnWire: true, Signatures: true})
}
