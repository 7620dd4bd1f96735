// Package llm is csa-agent's provider-neutral model interface: the
// conversation (messages of content blocks), a request, the streamed
// answer, and the errors providers return classed as csa classes failures.
// The providers (anthropic, openai, gemini) are thin clients over net/http
// and live in sub-packages; csa itself never links them.
package llm
