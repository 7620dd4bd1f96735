package subagent

import (
	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/loop"
)

// agentResponse is a finished subagent's result in the shape of Claude
// Code's Agent tool (2.1.197), for PostToolUse hooks (tool_response) and
// Claude Code transcripts.
type agentResponse struct {
	Status            string      `json:"status"` // completed
	Prompt            string      `json:"prompt"`
	AgentID           string      `json:"agentId"`
	AgentType         string      `json:"agentType"`
	Content           []textBlock `json:"content"`
	ResolvedModel     string      `json:"resolvedModel"`
	TotalDurationMs   int64       `json:"totalDurationMs"`
	TotalTokens       int64       `json:"totalTokens"`
	TotalToolUseCount int         `json:"totalToolUseCount"`
	Usage             usage       `json:"usage"`
}

type textBlock struct {
	Text string `json:"text"`
	Type string `json:"type"`
}

type usage struct {
	InputTokens              int64 `json:"input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
}

func (c *child) response(out loop.Outcome) agentResponse {
	uses := 0
	for _, m := range c.agent.Messages() {
		uses += len(m.ToolUses())
	}
	u := out.Usage
	return agentResponse{Status: "completed", Prompt: c.req.Prompt, AgentID: c.id, AgentType: c.def.Name,
		Content: []textBlock{{Text: out.Text, Type: llm.BlockText}}, ResolvedModel: c.agent.Config().Model,
		TotalDurationMs: out.Duration.Milliseconds(), TotalTokens: u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheWriteTokens,
		TotalToolUseCount: uses, Usage: usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
			CacheReadInputTokens: u.CacheReadTokens, CacheCreationInputTokens: u.CacheWriteTokens}}
}
