package compact

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/csa-dev/csa/internal/csaagent/llm"
)

// Cut is where to cut msgs: msgs[:k] is summarised, msgs[k:] kept. It is
// the earliest assistant message after which at most keep tokens remain,
// else the last one; never the first message (there would be nothing to
// summarise). A cut before an assistant message never separates a tool
// call from its result. -1: no cut is possible.
func Cut(msgs []llm.Message, keep int64) int {
	last := -1
	tail := int64(0)
	best := -1
	for k := len(msgs) - 1; k >= 2; k-- {
		tail += estimate(msgs[k])
		if msgs[k].Role != llm.Assistant || msgs[k-1].Role != llm.User {
			continue
		}
		if last < 0 {
			last = k
		}
		if tail <= keep {
			best = k
		}
	}
	if best < 0 {
		return last
	}
	return best
}

// LastRequest is the index of the user's latest request: the last user
// message that is not tool results; -1 if none.
func LastRequest(msgs []llm.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != llm.User {
			continue
		}
		results := false
		for _, b := range msgs[i].Content {
			results = results || b.Type == llm.BlockToolResult
		}
		if !results && strings.TrimSpace(msgs[i].Text()) != "" {
			return i
		}
	}
	return -1
}

// Estimate is a rough token count of msgs (4 bytes a token).
func Estimate(msgs []llm.Message) int64 {
	var n int64
	for _, m := range msgs {
		n += estimate(m)
	}
	return n
}

func estimate(m llm.Message) int64 {
	n := 0
	for _, b := range m.Content {
		n += len(b.Text) + len(b.Content) + len(b.Input) + len(b.Name) + 8
	}
	return int64(n/4 + 1)
}

// Transcript renders msgs as text for the summary request, each tool
// input and result capped; past maxBytes the oldest part is left out
// (but the first message, usually the task).
func Transcript(msgs []llm.Message, maxBytes int64) string {
	const capBlock = 2000
	names := map[string]string{}
	var parts []string
	for _, m := range msgs {
		for _, b := range m.Content {
			switch b.Type {
			case llm.BlockText:
				if strings.TrimSpace(b.Text) != "" {
					parts = append(parts, fmt.Sprintf("[%s]: %s", m.Role, b.Text))
				}
			case llm.BlockToolUse:
				names[b.ID] = b.Name
				parts = append(parts, fmt.Sprintf("[assistant called %s]: %s", b.Name, truncate(string(b.Input), capBlock)))
			case llm.BlockToolResult:
				what := "result"
				if b.IsError {
					what = "error"
				}
				parts = append(parts, fmt.Sprintf("[%s of %s]: %s", what, names[b.ToolUseID], truncate(b.Content, capBlock)))
			}
		}
	}
	if maxBytes <= 0 {
		maxBytes = 1 << 20
	}
	if len(parts) > 1 {
		budget := maxBytes - int64(len(parts[0]))
		start := len(parts)
		for start > 1 && budget >= int64(len(parts[start-1]))+1 {
			start--
			budget -= int64(len(parts[start])) + 1
		}
		if start > 1 {
			parts = append([]string{parts[0], "(… earlier turns left out …)"}, parts[start:]...)
		}
	}
	return "<conversation>\n" + strings.Join(parts, "\n") + "\n</conversation>"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes cut)", len(s)-cut)
}
