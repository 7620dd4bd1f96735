package gemini_test

import (
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/llm/gemini"
	"github.com/csa-dev/csa/internal/csaagent/llm/httpc"
	"github.com/csa-dev/csa/internal/csaagent/llm/llmtest"
)

func TestConformance(t *testing.T) {
	llmtest.Run(t, func(ep httpc.Endpoint) llm.Provider { return gemini.New("", ep) },
		llmtest.Features{Signatures: true})
}
