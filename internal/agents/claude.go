package agents

import (
	"encoding/json"
	"strings"

	"github.com/csa-dev/csa/internal/session"
)

var claudeCodeSpec = Spec{
	Tool:              ClaudeCode,
	Program:           Program{Name: "claude", Package: "@anthropic-ai/claude-code"},
	ACP:               &Program{Name: "claude-code-acp", Package: "@zed-industries/claude-code-acp"},
	Family:            FamilyAnthropic,
	InitialEstimateMB: 4096,
	StateDirs:         []string{".claude"},
	StateFiles:        []string{".claude.json"},
	Credentials:       []string{".claude/.credentials.json"},
	APIHosts:          []string{"api.anthropic.com"},
	MCPClient:         true,
	Adapter:           claudeCode{},
	Interactive:       claudeInteractive,
	Transcript:        claudeTranscript,
}

// claudeCode drives `claude -p --output-format stream-json --verbose`.
type claudeCode struct{}

func (claudeCode) NewParser() Parser { return &claudeParser{} }

func (claudeCode) Build(r Request) (Invocation, error) {
	inv := streamJSONInvocation(r, claudeMCPArgs(r.MCP)...)
	if r.Yolo && r.Root {
		// As root Claude Code refuses to skip permissions unless it is
		// told it runs in a sandbox.
		inv.Env = append(inv.Env, "IS_SANDBOX=1")
	}
	return inv, nil
}

// streamJSONInvocation is the headless invocation of a program that takes
// Claude Code's flags: -p --output-format stream-json, the provider
// session named up front (--session-id) or resumed, the prompt last or,
// without one in argv, on stdin. first come right after -p, before
// another flag (an option of several values must not take the prompt).
func streamJSONInvocation(r Request, first ...string) Invocation {
	inv := Invocation{Args: append(append([]string{"-p"}, first...), "--output-format", "stream-json", "--verbose")}
	inv.Args = appendFlag(inv.Args, "--model", r.Model)
	inv.Args = appendFlag(inv.Args, "--effort", r.Effort)
	if r.Yolo {
		inv.Args = append(inv.Args, "--dangerously-skip-permissions")
	}
	switch {
	case r.ResumeID != "":
		inv.Args = append(inv.Args, "--resume", r.ResumeID)
		inv.ProviderSessionID = r.ResumeID
	case r.NewSessionID != "":
		inv.Args = append(inv.Args, "--session-id", r.NewSessionID)
		inv.ProviderSessionID = r.NewSessionID
	}
	return withPrompt(inv, r.Prompt, "")
}

type claudeContent struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type claudeUsage struct {
	InputTokens          int64 `json:"input_tokens"`
	OutputTokens         int64 `json:"output_tokens"`
	CacheReadInputTokens int64 `json:"cache_read_input_tokens"`
	// Written to the cache: billed above the input price.
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
}

type claudeLine struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	SessionID string `json:"session_id"`
	Model     string `json:"model"`
	Message   *struct {
		Content []claudeContent `json:"content"`
	} `json:"message"`
	Result  *string `json:"result"`
	IsError bool    `json:"is_error"`
	// APIErrorStatus is the HTTP status of the provider error, if any.
	APIErrorStatus int          `json:"api_error_status"`
	Usage          *claudeUsage `json:"usage"`
	Errors         []string     `json:"errors"`
	// A system/api_retry line: Claude Code retries a failed request.
	Attempt      int     `json:"attempt"`
	MaxRetries   int     `json:"max_retries"`
	RetryDelayMS float64 `json:"retry_delay_ms"`
	ErrorStatus  int     `json:"error_status"`
	Error        string  `json:"error"`
}

type claudeParser struct {
	stream
	result    string
	gotResult bool
	lastText  string
	failed    bool
}

func (p *claudeParser) Feed(line []byte) []Event {
	var l claudeLine
	evs, ok := p.decode(line, &l)
	if !ok {
		return evs
	}
	evs = append(evs, p.setSession(l.SessionID, l.Model)...)
	switch l.Type {
	case "system":
		if l.Subtype == "api_retry" {
			evs = append(evs, retryEvent(l.Attempt, l.MaxRetries, l.ErrorStatus, int64(l.RetryDelayMS), l.Error))
		}
	case "assistant":
		if l.Message == nil {
			break
		}
		for _, c := range l.Message.Content {
			switch c.Type {
			case "text":
				p.lastText = tail(c.Text)
				evs = append(evs, Event{EvText, Text{Text: c.Text}})
			case "thinking":
				evs = append(evs, Event{EvThought, Text{Text: c.Thinking}})
			case "tool_use":
				evs = append(evs, Event{EvToolCall, ToolCall{ID: c.ID, Name: c.Name, Input: c.Input}})
			}
		}
	case "user":
		if l.Message == nil {
			break
		}
		for _, c := range l.Message.Content {
			if c.Type == "tool_result" {
				evs = append(evs, Event{EvToolResult, ToolResult{ID: c.ToolUseID, Output: contentText(c.Content), IsError: c.IsError}})
			}
		}
	case "result":
		p.gotResult = true
		if l.Usage != nil {
			u := l.Usage
			evs = append(evs, p.addUsage(session.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
				CachedTokens: u.CacheReadInputTokens, CacheWriteTokens: u.CacheCreationInputTokens}))
		}
		if l.Result != nil {
			p.result = tail(*l.Result)
		}
		if l.IsError || (l.Subtype != "" && l.Subtype != "success") {
			p.failed = true
			msg := p.result
			if msg == "" {
				msg = strings.Join(append([]string{l.Subtype}, l.Errors...), ": ")
			}
			evs = append(evs, p.addErrorStatus(msg, l.APIErrorStatus))
		}
	}
	return evs
}

func (p *claudeParser) Finish(exit int, stderr string) Outcome {
	result := p.result
	if p.failed {
		result = ""
	} else if !p.gotResult {
		result = p.lastText
	}
	return p.finish(result, exit, stderr, p.failed)
}

// contentText flattens a tool result's content (a string or blocks).
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) == nil {
		parts := make([]string, 0, len(blocks))
		for _, b := range blocks {
			parts = append(parts, b.Text)
		}
		return strings.Join(parts, "\n")
	}
	return string(raw)
}

func appendFlag(args []string, flag, value string) []string {
	if value == "" {
		return args
	}
	return append(args, flag, value)
}

// withPrompt puts the prompt last in argv, or on stdin when it is long or
// would be taken for an option; stdinArg is what the program wants in argv
// to read stdin ("" for none).
func withPrompt(inv Invocation, prompt, stdinArg string) Invocation {
	if promptOnStdin(prompt) {
		if stdinArg != "" {
			inv.Args = append(inv.Args, stdinArg)
		}
		inv.Stdin = []byte(prompt)
		return inv
	}
	inv.Args = append(inv.Args, prompt)
	return inv
}

// promptOnStdin decides when argv cannot carry the prompt: too long for
// argv (and visible in ps), starting with "-", which every program would
// parse as an option, or holding a NUL byte, which ends an argument.
func promptOnStdin(prompt string) bool {
	return len(prompt) > MaxArgvPrompt || strings.HasPrefix(prompt, "-") || strings.IndexByte(prompt, 0) >= 0
}
