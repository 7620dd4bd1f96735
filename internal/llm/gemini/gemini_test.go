package gemini_test

import (
	"testing"

	"github.com/csa-dev/csa/internal/llm"
	"github.com/csa-dev/csa/internal/llm/gemini"
	"github.com/csa-dev/csa/internal/llm/httpc"
	"github.com/csa-dev/csa/internal/llm/llmtest"
)

func TestConformance(t *testing.T) {
	llmtest.Run(t, func(ep httpc.Endpoint) llm.Provider { return gemini.New("", ep) },
		llmtest.Features{Signatures: true})
}
