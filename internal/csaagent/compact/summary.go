package compact

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/loop"
)

// build asks the model for a summary of msgs[:k] and returns the
// conversation to continue with: the summary (with the latest request
// verbatim when it was summarised, and the files read most recently), then
// msgs[k:].
func (c *Compactor) build(ctx context.Context, a *loop.Agent, msgs []llm.Message, k int, trigger, instructions string) ([]llm.Message, error) {
	if c.cfg.PreCompact != nil {
		c.cfg.PreCompact(ctx, trigger, instructions)
	}
	cfg := a.Config()
	if cfg.Provider == nil {
		return nil, errors.New("no provider to summarise with")
	}
	prompt := Transcript(msgs[:k], c.Limit(a)*3) + "\n\n" + instruction
	if strings.TrimSpace(instructions) != "" {
		prompt += "\n\nAdditional instructions from the user for this summary:\n" + instructions
	}
	resp, err := cfg.Provider.Stream(ctx, &llm.Request{Model: cfg.Model, System: system,
		Messages: []llm.Message{llm.UserText(prompt)}, MaxTokens: c.cfg.SummaryTokens}, nil)
	if err != nil {
		return nil, fmt.Errorf("summarise: %w", err)
	}
	summary := strings.TrimSpace(resp.Message.Text())
	if summary == "" {
		return nil, errors.New("summarise: the model gave an empty summary")
	}
	var b strings.Builder
	b.WriteString("This session continues an earlier conversation that was compacted to fit the context window. " +
		"Summary of the earlier part:\n<summary>\n" + summary + "\n</summary>\n")
	if r := LastRequest(msgs); r >= 0 && r < k {
		b.WriteString("\nThe user's latest request, verbatim:\n<request>\n" + msgs[r].Text() + "\n</request>\n")
	}
	if cfg.Env != nil && cfg.Env.Files != nil {
		b.WriteString(c.files(cfg.Env.Files.Recent(c.cfg.MaxFiles)))
	}
	b.WriteString("\nContinue from where the conversation left off.")
	out := append([]llm.Message{llm.UserText(b.String())}, msgs[k:]...)
	return out, nil
}

const system = "You summarise a coding agent's conversation so that the agent can continue the work from the summary alone."

const instruction = `Summarise the conversation above for the agent that will continue it; it will not see the conversation again. Include:
1. The user's requests and intent, all of them, in detail (quote the latest one).
2. Key technical concepts, decisions and constraints.
3. Files and code: which were read, created or changed, and why; important snippets.
4. Errors met and how they were fixed; what was tried and failed.
5. Pending tasks, the work in progress at the end, and the next step.
Answer with the summary only.`

// files re-attaches recently read files, most recent first, within the
// caps.
func (c *Compactor) files(paths []string) string {
	var b strings.Builder
	total := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil || strings.IndexByte(string(data), 0) >= 0 || !utf8.Valid(data) {
			continue
		}
		s := string(data)
		if len(s) > c.cfg.MaxFileBytes {
			s = truncate(s, c.cfg.MaxFileBytes) + "\n… (truncated; read the file again for the rest)"
		}
		if total+len(s) > c.cfg.MaxFilesBytes {
			break
		}
		total += len(s)
		if b.Len() == 0 {
			b.WriteString("\nFiles read recently, as they are now:\n")
		}
		fmt.Fprintf(&b, "<file path=%q>\n%s\n</file>\n", p, s)
	}
	return b.String()
}
