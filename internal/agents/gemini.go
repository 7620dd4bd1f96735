package agents

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/csa-dev/csa/internal/session"
)

var geminiSpec = Spec{
	Tool:              GeminiCLI,
	Program:           Program{Name: "gemini", Package: "@google/gemini-cli"},
	Family:            FamilyGoogle,
	InputCountsCached: true,
	InitialEstimateMB: 1024,
	StateDirs:         []string{".gemini"},
	Credentials:       []string{".gemini/oauth_creds.json"},
	APIHosts:          []string{"generativelanguage.googleapis.com", "cloudcode-pa.googleapis.com", "oauth2.googleapis.com"},
	Adapter:           geminiCLI{},
	Interactive:       geminiInteractive,
}

// geminiCLI drives `gemini -p PROMPT --output-format stream-json`.
type geminiCLI struct{}

func (geminiCLI) NewParser() Parser { return &geminiParser{} }

// geminiInteractive starts its interface; it has no turn hooks csa can
// install, so its turns are judged by CPU and output. Its input turns an
// Enter that comes within 40 ms of a paste (by its event loop's timer)
// into a newline: on a busy machine that timer fires late, so the Enter
// waits well past it (csa send waits for the paste's echo first).
func geminiInteractive(r InteractiveRequest) (InteractiveInvocation, error) {
	inv := InteractiveInvocation{SubmitDelayMS: 400, ReadyMS: 2000}
	if r.Yolo {
		inv.Args = append(inv.Args, "--yolo")
	}
	inv.Args = appendFlag(inv.Args, "-m", r.Model)
	inv.Args = appendFlag(inv.Args, "-i", r.Prompt)
	return inv, nil
}

func (geminiCLI) Build(r Request) (Invocation, error) {
	inv := Invocation{Args: []string{"--output-format", "stream-json"}}
	inv.Args = appendFlag(inv.Args, "-m", r.Model)
	if r.Yolo {
		// Headless yolo also means trusting the working directory, which
		// gemini would otherwise refuse (exit 55).
		inv.Args = append(inv.Args, "--yolo", "--skip-trust")
	}
	if r.ResumeID != "" {
		inv.Args = append(inv.Args, "--resume", r.ResumeID)
		inv.ProviderSessionID = r.ResumeID
	}
	if promptOnStdin(r.Prompt) {
		// -p is appended to what arrives on stdin.
		inv.Args = append(inv.Args, "-p", " ")
		inv.Stdin = []byte(r.Prompt)
		return inv, nil
	}
	inv.Args = append(inv.Args, "-p", r.Prompt)
	return inv, nil
}

type geminiLine struct {
	Type       string          `json:"type"`
	SessionID  string          `json:"session_id"`
	Model      string          `json:"model"`
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	Delta      bool            `json:"delta"`
	ToolName   string          `json:"tool_name"`
	ToolID     string          `json:"tool_id"`
	Parameters json.RawMessage `json:"parameters"`
	Status     string          `json:"status"`
	Output     string          `json:"output"`
	Message    string          `json:"message"`
	Error      *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	Stats *struct {
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
		Cached       int64 `json:"cached"`
	} `json:"stats"`
}

type geminiParser struct {
	stream
	answer strings.Builder
	failed bool
	retry  *pendingRetry // an "Attempt N failed" whose retry is not told yet
}

// pendingRetry is a failed attempt Gemini CLI reported on stderr.
type pendingRetry struct {
	attempt int
	msg     strings.Builder
	lines   int
}

// Gemini CLI reports its own retries on stderr:
//
//	Attempt 1 failed: <message, maybe several lines>
//	Suggested retry after 1s.. Retrying after 5719ms...
var (
	geminiAttempt  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Attempt (\d+) failed:?\s*(.*)$`) })
	geminiRetrying = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Retrying after (\d+)\s*ms`) })
)

// FeedStderr turns Gemini CLI's retry reports into retry events.
func (p *geminiParser) FeedStderr(line []byte) []Event {
	l := strings.TrimSpace(string(line))
	if m := geminiAttempt().FindStringSubmatch(l); m != nil {
		n, _ := strconv.Atoi(m[1])
		p.retry = &pendingRetry{attempt: n}
		l = m[2]
	} else if p.retry == nil {
		return nil
	}
	r := p.retry
	if m := geminiRetrying().FindStringSubmatchIndex(l); m != nil {
		r.msg.WriteString(l[:m[0]])
		delay, _ := strconv.ParseInt(l[m[2]:m[3]], 10, 64)
		p.retry = nil
		msg := strings.TrimRight(strings.TrimSpace(r.msg.String()), ".")
		status := statusOf(msg)
		if strings.Contains(msg, "Suggested retry after") {
			status = 429 // Google sends RetryInfo with its 429s
		}
		return []Event{retryEvent(r.attempt, 0, status, delay, msg)}
	}
	// The message goes on; a report that never says it retries is not one.
	if r.lines++; r.lines > 8 || strings.Contains(l, "Max attempts reached") {
		p.retry = nil
		return nil
	}
	r.msg.WriteString(l + " ")
	return nil
}

func (p *geminiParser) Feed(line []byte) []Event {
	var l geminiLine
	evs, ok := p.decode(line, &l)
	if !ok {
		return evs
	}
	switch l.Type {
	case "init":
		evs = append(evs, p.setSession(l.SessionID, l.Model)...)
	case "message":
		if l.Role != "assistant" {
			break
		}
		appendTail(&p.answer, l.Content)
		evs = append(evs, Event{EvText, Text{Text: l.Content, Delta: l.Delta}})
	case "tool_use":
		// The answer is what the model says after its last tool.
		p.answer.Reset()
		evs = append(evs, Event{EvToolCall, ToolCall{ID: l.ToolID, Name: l.ToolName, Input: l.Parameters}})
	case "tool_result":
		out := l.Output
		if l.Error != nil && out == "" {
			out = l.Error.Message
		}
		evs = append(evs, Event{EvToolResult, ToolResult{ID: l.ToolID, Output: out, IsError: l.Status == "error"}})
	case "error":
		msg := l.Message
		if msg == "" && l.Error != nil {
			msg = l.Error.Message
		}
		evs = append(evs, p.addError(msg))
	case "result":
		if s := l.Stats; s != nil {
			evs = append(evs, p.addUsage(session.Usage{InputTokens: s.InputTokens, OutputTokens: s.OutputTokens, CachedTokens: s.Cached}))
		}
		if l.Status == "error" {
			p.failed = true
			msg := "gemini reported an error"
			if l.Error != nil {
				msg = l.Error.Message
			}
			evs = append(evs, p.addError(msg))
		}
	}
	return evs
}

func (p *geminiParser) Finish(exit int, stderr string) Outcome {
	result := p.answer.String()
	if p.failed {
		result = ""
	}
	return p.finish(result, exit, stderr, p.failed)
}
