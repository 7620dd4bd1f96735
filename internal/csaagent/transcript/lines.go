package transcript

import (
	"bufio"
	"encoding/json"
	"os"

	"github.com/csa-dev/csa/internal/csaagent/llm"
)

// line is one line of a Claude Code transcript (the fields its readers
// use; Claude Code adds more of its own).
type line struct {
	ParentUUID  *string `json:"parentUuid"`
	IsSidechain bool    `json:"isSidechain"`
	AgentID     string  `json:"agentId,omitempty"`
	Type        string  `json:"type"` // user or assistant
	Message     any     `json:"message"`
	UUID        string  `json:"uuid"`
	Timestamp   string  `json:"timestamp"`
	// ToolUseResult is a tool result's object (the tool_response hooks
	// got) or its text.
	ToolUseResult           any    `json:"toolUseResult,omitempty"`
	SourceToolAssistantUUID string `json:"sourceToolAssistantUUID,omitempty"`
	UserType                string `json:"userType"`
	Cwd                     string `json:"cwd"`
	SessionID               string `json:"sessionId"`
	Version                 string `json:"version"`
}

type userMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"` // a prompt's text, or blocks
}

// assistantMessage is the API's message, one content block per line as
// Claude Code writes them: the lines of one response share its id and
// usage (readers count each id once).
type assistantMessage struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Model        string  `json:"model"`
	Content      []block `json:"content"`
	StopReason   string  `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        usage   `json:"usage"`
}

type usage struct {
	InputTokens              int64 `json:"input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
}

// block is a content block in the Anthropic API's shape.
type block struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature string          `json:"signature,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   *string         `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

func apiBlock(b llm.Block) block {
	out := block{Type: b.Type}
	switch b.Type {
	case llm.BlockThinking:
		out.Thinking, out.Signature = &b.Text, b.Signature
	case llm.BlockToolUse:
		out.ID, out.Name, out.Input = b.ID, b.Name, b.Input
		if len(out.Input) == 0 {
			out.Input = json.RawMessage("{}")
		}
	case llm.BlockToolResult:
		out.ToolUseID, out.Content, out.IsError = b.ToolUseID, &b.Content, b.IsError
	default:
		out.Text = &b.Text
	}
	return out
}

// lines are m's lines: an assistant message's blocks one by one; a user
// message's tool results one by one, each with its tool's result object;
// a prompt as its text.
func (s *Session) lines(f *file, m llm.Message) []line {
	var out []line
	add := func(l line) {
		l.IsSidechain, l.AgentID, l.UserType, l.Cwd, l.SessionID, l.Version = f.sidechain, f.agentID, "external", s.cwd, s.id, Version
		l.UUID, l.Timestamp = newUUID(), s.now().UTC().Format("2006-01-02T15:04:05.000Z")
		if f.last != "" {
			parent := f.last
			l.ParentUUID = &parent
		}
		f.last = l.UUID
		out = append(out, l)
	}
	if m.Role == llm.Assistant {
		r := s.usage[f.agentID]
		delete(s.usage, f.agentID)
		stop := "end_turn"
		if len(m.ToolUses()) > 0 {
			stop = "tool_use"
		}
		id := "msg_" + newUUID()
		for _, b := range m.Content {
			add(line{Type: "assistant", Message: assistantMessage{ID: id, Type: "message", Role: "assistant", Model: r.model,
				Content: []block{apiBlock(b)}, StopReason: stop, Usage: usage{InputTokens: r.usage.InputTokens,
					OutputTokens: r.usage.OutputTokens, CacheReadInputTokens: r.usage.CacheReadTokens,
					CacheCreationInputTokens: r.usage.CacheWriteTokens}}})
			if b.Type == llm.BlockToolUse {
				f.uses[b.ID] = f.last
			}
		}
		return out
	}
	var rest []block
	for _, b := range m.Content {
		if b.Type != llm.BlockToolResult {
			rest = append(rest, apiBlock(b))
			continue
		}
		var res any = b.Content
		if r, ok := s.result[b.ToolUseID]; ok && !b.IsError {
			res = r
		}
		delete(s.result, b.ToolUseID)
		add(line{Type: "user", Message: userMessage{Role: "user", Content: []block{apiBlock(b)}},
			ToolUseResult: res, SourceToolAssistantUUID: f.uses[b.ToolUseID]})
		delete(f.uses, b.ToolUseID)
	}
	switch {
	case len(rest) == 1 && rest[0].Type == llm.BlockText && len(out) == 0:
		add(line{Type: "user", Message: userMessage{Role: "user", Content: *rest[0].Text}})
	case len(rest) > 0:
		add(line{Type: "user", Message: userMessage{Role: "user", Content: rest}})
	}
	return out
}

// lastUUID is the uuid of the last line of an existing transcript ("" for
// none): a resumed session's next parent.
func lastUUID(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	last := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var l struct {
			UUID string `json:"uuid"`
		}
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.UUID != "" {
			last = l.UUID
		}
	}
	return last
}
