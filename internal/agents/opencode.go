package agents

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/csa-dev/csa/internal/session"
)

var opencodeSpec = Spec{
	Tool:    Opencode,
	Program: Program{Name: "opencode", Package: "opencode-ai"},
	// Family: that of its configured model (it drives many providers).
	ModelWithProvider: true,
	InitialEstimateMB: 1536,
	StateDirs:         []string{".local/share/opencode", ".local/state/opencode", ".config/opencode", ".cache/opencode"},
	Credentials:       []string{".local/share/opencode/auth.json"},
	APIHosts:          []string{"api.anthropic.com", "api.openai.com", "generativelanguage.googleapis.com", "models.dev"},
	ConfigEndpoints:   opencodeEndpoints,
	MCPClient:         true,
	Adapter:           opencode{},
	Interactive:       opencodeInteractive,
}

// opencode drives `opencode run --format json`.
type opencode struct{}

func (opencode) NewParser() Parser { return &opencodeParser{} }

// opencodeInteractive starts its interface; no turn hooks (see gemini).
func opencodeInteractive(r InteractiveRequest) (InteractiveInvocation, error) {
	inv := InteractiveInvocation{SubmitDelayMS: 100, ReadyMS: 2000}
	var err error
	if inv.Env, err = opencodeMCPEnv(r.MCP, r.Getenv); err != nil {
		return inv, err
	}
	inv.Args = appendFlag(inv.Args, "-m", r.Model)
	inv.Args = appendFlag(inv.Args, "--prompt", r.Prompt)
	return inv, nil
}

func (opencode) Build(r Request) (Invocation, error) {
	// Its error log on stderr is where it tells of its own retries.
	inv := Invocation{Args: []string{"run", "--format", "json", "--print-logs", "--log-level", "ERROR"}}
	var err error
	if inv.Env, err = opencodeMCPEnv(r.MCP, r.Getenv); err != nil {
		return inv, err
	}
	inv.Args = appendFlag(inv.Args, "-m", r.Model)
	inv.Args = appendFlag(inv.Args, "--variant", r.Effort)
	if r.Yolo {
		inv.Args = append(inv.Args, "--auto")
	}
	if r.ResumeID != "" {
		inv.Args = append(inv.Args, "-s", r.ResumeID)
		inv.ProviderSessionID = r.ResumeID
	}
	return withPrompt(inv, r.Prompt, ""), nil
}

type opencodeLine struct {
	Type      string `json:"type"`
	SessionID string `json:"sessionID"`
	Part      *struct {
		Type   string `json:"type"`
		Text   string `json:"text"`
		Tool   string `json:"tool"`
		CallID string `json:"callID"`
		State  *struct {
			Status string          `json:"status"`
			Input  json.RawMessage `json:"input"`
			Output string          `json:"output"`
			Error  string          `json:"error"`
		} `json:"state"`
		Tokens *struct {
			Input  int64 `json:"input"`
			Output int64 `json:"output"`
			Cache  struct {
				Read  int64 `json:"read"`
				Write int64 `json:"write"`
			} `json:"cache"`
		} `json:"tokens"`
	} `json:"part"`
	Error json.RawMessage `json:"error"`
}

type opencodeParser struct {
	stream
	step     strings.Builder // text of the current step
	answer   string          // text of the last finished step that said anything
	failed   bool
	attempts int // failed model requests it logged
}

// opencodeStreamError is OpenCode's log line for a failed model request,
// which it retries (five times in all):
//
//	... level=ERROR ... message="stream error" ... error.error="AI_APICallError: <message>"
var opencodeStreamError = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`level=ERROR .*message="stream error".*?error\.error="((?:[^"\\]|\\.)*)"`)
})

// FeedStderr turns OpenCode's logged request failures into retry events.
func (p *opencodeParser) FeedStderr(line []byte) []Event {
	m := opencodeStreamError().FindSubmatch(line)
	if m == nil {
		return nil
	}
	p.attempts++
	msg := strings.TrimPrefix(strings.ReplaceAll(string(m[1]), `\"`, `"`), "AI_APICallError: ")
	return []Event{retryEvent(p.attempts, 0, statusOf(msg), 0, msg)}
}

func (p *opencodeParser) Feed(line []byte) []Event {
	var l opencodeLine
	evs, ok := p.decode(line, &l)
	if !ok {
		return evs
	}
	evs = append(evs, p.setSession(l.SessionID, "")...)
	part := l.Part
	switch l.Type {
	case "step_start":
		if p.step.Len() > 0 {
			p.answer = p.step.String()
		}
		p.step.Reset()
	case "text":
		if part != nil {
			appendTail(&p.step, part.Text)
			evs = append(evs, Event{EvText, Text{Text: part.Text}})
		}
	case "reasoning":
		if part != nil {
			evs = append(evs, Event{EvThought, Text{Text: part.Text}})
		}
	case "tool_use":
		if part != nil && part.State != nil {
			evs = append(evs, Event{EvToolCall, ToolCall{ID: part.CallID, Name: part.Tool, Input: part.State.Input}})
			if st := part.State.Status; st == "completed" || st == "error" {
				out := part.State.Output
				if out == "" {
					out = part.State.Error
				}
				evs = append(evs, Event{EvToolResult, ToolResult{ID: part.CallID, Name: part.Tool, Output: out, IsError: st == "error"}})
			}
		}
	case "step_finish":
		if part != nil && part.Tokens != nil {
			t := part.Tokens
			evs = append(evs, p.addUsage(session.Usage{InputTokens: t.Input, OutputTokens: t.Output, CachedTokens: t.Cache.Read, CacheWriteTokens: t.Cache.Write}))
		}
	case "error":
		p.failed = true
		msg, status := opencodeError(l.Error)
		evs = append(evs, p.addErrorStatus(msg, status))
	}
	return evs
}

// opencodeError digs the message and HTTP status out of
// {name, data: {message, statusCode}}.
func opencodeError(raw json.RawMessage) (string, int) {
	var e struct {
		Name string `json:"name"`
		Data struct {
			Message    string `json:"message"`
			StatusCode int    `json:"statusCode"`
		} `json:"data"`
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &e) == nil {
		for _, m := range []string{e.Data.Message, e.Message, e.Name} {
			if m != "" {
				return m, e.Data.StatusCode
			}
		}
	}
	return string(raw), 0
}

func (p *opencodeParser) Finish(exit int, stderr string) Outcome {
	result := p.answer
	if p.step.Len() > 0 {
		result = p.step.String()
	}
	if p.failed {
		result = ""
	}
	return p.finish(result, exit, stderr, p.failed)
}
