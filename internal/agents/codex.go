package agents

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"sync"

	"github.com/csa-dev/csa/internal/session"
)

var codexSpec = Spec{
	Tool:              Codex,
	Program:           Program{Name: "codex", Package: "@openai/codex"},
	ACP:               &Program{Name: "codex-acp", Package: "@zed-industries/codex-acp"},
	Family:            FamilyOpenAI,
	InputCountsCached: true,
	InitialEstimateMB: 4096,
	StateDirs:         []string{".codex"},
	Credentials:       []string{".codex/auth.json"},
	APIHosts:          []string{"api.openai.com", "chatgpt.com", "auth.openai.com"},
	ConfigEndpoints:   codexEndpoints,
	MCPClient:         true,
	Adapter:           codex{},
	Interactive:       codexInteractive,
}

// codex drives `codex exec --json`.
type codex struct{}

func (codex) NewParser() Parser { return &codexParser{} }

func (codex) Build(r Request) (Invocation, error) {
	inv := Invocation{Args: []string{"exec"}}
	if r.ResumeID != "" {
		inv.Args = append(inv.Args, "resume")
		inv.ProviderSessionID = r.ResumeID
	}
	inv.Args = append(inv.Args, "--json", "--skip-git-repo-check")
	if r.Yolo {
		inv.Args = append(inv.Args, "--dangerously-bypass-approvals-and-sandbox")
	}
	inv.Args = appendFlag(inv.Args, "-m", r.Model)
	if r.Effort != "" {
		inv.Args = append(inv.Args, "-c", fmt.Sprintf("model_reasoning_effort=%q", r.Effort))
	}
	inv.Args = append(inv.Args, codexMCPArgs(r.MCP)...)
	if r.ResumeID != "" {
		inv.Args = append(inv.Args, r.ResumeID)
	}
	return withPrompt(inv, r.Prompt, "-"), nil
}

type codexItem struct {
	ID               string          `json:"id"`
	Type             string          `json:"type"`
	Text             string          `json:"text"`
	Command          string          `json:"command"`
	AggregatedOutput string          `json:"aggregated_output"`
	ExitCode         *int            `json:"exit_code"`
	Status           string          `json:"status"`
	Message          string          `json:"message"`
	Changes          json.RawMessage `json:"changes"`
	Tool             string          `json:"tool"`
	Arguments        json.RawMessage `json:"arguments"`
}

type codexLine struct {
	Type     string     `json:"type"`
	ThreadID string     `json:"thread_id"`
	Item     *codexItem `json:"item"`
	Usage    *struct {
		InputTokens       int64 `json:"input_tokens"`
		CachedInputTokens int64 `json:"cached_input_tokens"`
		OutputTokens      int64 `json:"output_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
	Message string `json:"message"`
}

type codexParser struct {
	stream
	last   string
	failed bool
}

func (p *codexParser) Feed(line []byte) []Event {
	var l codexLine
	evs, ok := p.decode(line, &l)
	if !ok {
		return evs
	}
	switch l.Type {
	case "thread.started":
		evs = append(evs, p.setSession(l.ThreadID, "")...)
	case "item.started":
		if it := l.Item; it != nil && it.Type == "command_execution" {
			in, _ := json.Marshal(map[string]string{"command": it.Command})
			evs = append(evs, Event{EvToolCall, ToolCall{ID: it.ID, Name: "shell", Input: in}})
		}
	case "item.completed":
		evs = append(evs, p.item(l.Item)...)
	case "turn.completed":
		if u := l.Usage; u != nil {
			evs = append(evs, p.addUsage(session.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CachedTokens: u.CachedInputTokens}))
		}
	case "turn.failed":
		p.failed = true
		msg := "turn failed"
		if l.Error != nil {
			msg = l.Error.Message
		}
		evs = append(evs, p.addError(msg))
	case "error":
		if m := reconnecting().FindStringSubmatch(l.Message); m != nil {
			// Codex retries the request by itself: not an error yet.
			n, _ := strconv.Atoi(m[1])
			max, _ := strconv.Atoi(m[2])
			evs = append(evs, retryEvent(n, max, statusOf(m[3]), 0, m[3]))
			break
		}
		evs = append(evs, p.addError(l.Message))
	}
	return evs
}

// reconnecting is how Codex reports its own retries: "Reconnecting... 2/5
// (exceeded retry limit, last status: 429 Too Many Requests)".
var reconnecting = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^Reconnecting\.\.\. (\d+)/(\d+)\s*\((.*)\)\s*$`)
})

func (p *codexParser) item(it *codexItem) []Event {
	if it == nil {
		return nil
	}
	switch it.Type {
	case "agent_message", "assistant_message":
		p.last = tail(it.Text)
		return []Event{{EvText, Text{Text: it.Text}}}
	case "reasoning":
		return []Event{{EvThought, Text{Text: it.Text}}}
	case "command_execution":
		failed := it.Status == "failed" || (it.ExitCode != nil && *it.ExitCode != 0)
		return []Event{{EvToolResult, ToolResult{ID: it.ID, Name: "shell", Output: it.AggregatedOutput, IsError: failed}}}
	case "file_change":
		return []Event{
			{EvToolCall, ToolCall{ID: it.ID, Name: "file_change", Input: it.Changes}},
			{EvToolResult, ToolResult{ID: it.ID, Name: "file_change", IsError: it.Status == "failed"}},
		}
	case "mcp_tool_call":
		return []Event{
			{EvToolCall, ToolCall{ID: it.ID, Name: it.Tool, Input: it.Arguments}},
			{EvToolResult, ToolResult{ID: it.ID, Name: it.Tool, IsError: it.Status == "failed"}},
		}
	case "error":
		return []Event{p.addError(it.Message)}
	}
	return nil
}

func (p *codexParser) Finish(exit int, stderr string) Outcome {
	result := p.last
	if p.failed {
		result = ""
	}
	return p.finish(result, exit, stderr, p.failed)
}
