package anthropic_test

import (
	"testing"

	"github.com/csa-dev/csa/internal/llm"
	"github.com/csa-dev/csa/internal/llm/anthropic"
	"github.com/csa-dev/csa/internal/llm/httpc"
	"github.com/csa-dev/csa/internal/llm/llmtest"
)

func TestConformance(t *testing.T) {
	llmtest.Run(t, func(ep httpc.Endpoint) llm.Provider { return anthropic.New("", ep) },
		llmtest.Features{IDsOnWire: true, Signatures: true})
}
