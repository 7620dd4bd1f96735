package appserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/event"
)

// ThreadItem is one thing a turn holds, as Codex's item types: what the
// agent said, a command it ran, files it changed, another tool it called.
type ThreadItem interface{ itemType() string }

type AgentMessageItem struct {
	Type string `json:"type"` // agentMessage
	ID   string `json:"id"`
	Text string `json:"text"`
}

type ReasoningItem struct {
	Type    string   `json:"type"` // reasoning
	ID      string   `json:"id"`
	Content []string `json:"content"`
	Summary []string `json:"summary"`
}

// CommandExecutionItem is a Bash call.
type CommandExecutionItem struct {
	Type             string          `json:"type"` // commandExecution
	ID               string          `json:"id"`
	Command          string          `json:"command"`
	Cwd              string          `json:"cwd"`
	Status           string          `json:"status"` // inProgress, completed, failed, declined
	CommandActions   []CommandAction `json:"commandActions"`
	AggregatedOutput *string         `json:"aggregatedOutput,omitempty"`
	ExitCode         *int            `json:"exitCode,omitempty"`
	DurationMs       *int64          `json:"durationMs,omitempty"`
}

// CommandAction is what a command does; csa-agent reports each command as
// "unknown" (Codex parses them into reads, searches...).
type CommandAction struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

// FileChangeItem is a call of Edit, MultiEdit, Write or NotebookEdit.
type FileChangeItem struct {
	Type    string       `json:"type"` // fileChange
	ID      string       `json:"id"`
	Changes []FileChange `json:"changes"`
	Status  string       `json:"status"` // inProgress, completed, failed, declined
}

// FileChange is one file's change; Diff is the edit's old lines as "-"
// and new ones as "+" (not a unified diff with context).
type FileChange struct {
	Path string     `json:"path"`
	Kind ChangeKind `json:"kind"`
	Diff string     `json:"diff"`
}

type ChangeKind struct {
	Type string `json:"type"` // add, update
}

// DynamicToolCallItem is a call of any other tool (Read, Grep, Task, MCP
// tools...): Codex's item for tools the client does not know.
type DynamicToolCallItem struct {
	Type         string          `json:"type"` // dynamicToolCall
	ID           string          `json:"id"`
	Tool         string          `json:"tool"`
	Arguments    json.RawMessage `json:"arguments"`
	Status       string          `json:"status"` // inProgress, completed, failed
	Success      *bool           `json:"success,omitempty"`
	ContentItems []ContentItem   `json:"contentItems,omitempty"`
	DurationMs   *int64          `json:"durationMs,omitempty"`
}

type ContentItem struct {
	Type string `json:"type"` // inputText
	Text string `json:"text"`
}

func (AgentMessageItem) itemType() string     { return "agentMessage" }
func (ReasoningItem) itemType() string        { return "reasoning" }
func (CommandExecutionItem) itemType() string { return "commandExecution" }
func (FileChangeItem) itemType() string       { return "fileChange" }
func (DynamicToolCallItem) itemType() string  { return "dynamicToolCall" }

// itemKinds are the item types, for the schema.
var itemKinds = []ThreadItem{AgentMessageItem{}, ReasoningItem{}, CommandExecutionItem{}, FileChangeItem{}, DynamicToolCallItem{}}

// mapper turns one turn's events into item notifications. Only the main
// agent's events become items: a subagent's work shows as its Task call.
type mapper struct {
	threadID, turnID, cwd string
	emit                  func(method string, params any)
	ids                   func(kind string) string

	mu        sync.Mutex
	message   *AgentMessageItem // being streamed
	reasoning *ReasoningItem
	calls     map[string]*call // by tool call id
}

// call is a tool call's item while it runs.
type call struct {
	item     ThreadItem
	started  time.Time
	declined bool
}

func newMapper(threadID, turnID, cwd string, emit func(string, any), ids func(string) string) *mapper {
	return &mapper{threadID: threadID, turnID: turnID, cwd: cwd, emit: emit, ids: ids, calls: map[string]*call{}}
}

func (m *mapper) Emit(e event.Event) {
	if e.Agent != "" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	switch e.Kind {
	case event.ThinkingDelta:
		if m.reasoning == nil {
			m.reasoning = &ReasoningItem{Type: "reasoning", ID: m.ids("reasoning"), Content: []string{""}, Summary: []string{}}
			m.emit("item/started", m.started(*m.reasoning))
		}
		m.reasoning.Content[0] += e.Text
		m.emit("item/reasoning/textDelta", ReasoningTextDeltaNotification{ThreadID: m.threadID, TurnID: m.turnID, ItemID: m.reasoning.ID, Delta: e.Text})
	case event.TextDelta:
		m.closeReasoning()
		if m.message == nil {
			m.message = &AgentMessageItem{Type: "agentMessage", ID: m.ids("msg")}
			m.emit("item/started", m.started(*m.message))
		}
		m.message.Text += e.Text
		m.emit("item/agentMessage/delta", AgentMessageDeltaNotification{ThreadID: m.threadID, TurnID: m.turnID, ItemID: m.message.ID, Delta: e.Text})
	case event.Assistant:
		m.closeReasoning()
		if m.message == nil && e.Message != nil && e.Message.Text() != "" {
			// A provider that did not stream: the whole message at once.
			m.message = &AgentMessageItem{Type: "agentMessage", ID: m.ids("msg")}
			m.emit("item/started", m.started(*m.message))
		}
		m.closeMessage(e)
	case event.ToolQueued:
		c := &call{item: m.toolItem(e), started: time.Now()}
		m.calls[e.ToolID] = c
		m.emit("item/started", m.started(c.item))
	case event.ToolFinished:
		c := m.calls[e.ToolID]
		if c == nil {
			return
		}
		delete(m.calls, e.ToolID)
		m.emit("item/completed", m.completed(finish(c, e)))
	}
}

// Flush completes what a turn that ended abruptly left open.
func (m *mapper) Flush() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closeReasoning()
	m.closeMessage(event.Event{})
	for id, c := range m.calls {
		m.emit("item/completed", m.completed(finish(c, event.Event{IsError: true, Text: "interrupted before it ran"})))
		delete(m.calls, id)
	}
}

// Declined marks a call the client declined: its item ends "declined".
func (m *mapper) Declined(toolID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.calls[toolID]; c != nil {
		c.declined = true
	}
}

func (m *mapper) closeReasoning() {
	if m.reasoning != nil {
		m.emit("item/completed", m.completed(*m.reasoning))
		m.reasoning = nil
	}
}

func (m *mapper) closeMessage(e event.Event) {
	if m.message == nil {
		return
	}
	if e.Message != nil && e.Message.Text() != "" {
		m.message.Text = e.Message.Text()
	}
	m.emit("item/completed", m.completed(*m.message))
	m.message = nil
}

func (m *mapper) toolItem(e event.Event) ThreadItem {
	var in map[string]any
	json.Unmarshal(e.Input, &in)
	str := func(k string) string { s, _ := in[k].(string); return s }
	switch e.ToolName {
	case "Bash":
		cmd := str("command")
		return CommandExecutionItem{Type: "commandExecution", ID: e.ToolID, Command: cmd, Cwd: m.cwd,
			Status: "inProgress", CommandActions: []CommandAction{{Type: "unknown", Command: cmd}}}
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		return FileChangeItem{Type: "fileChange", ID: e.ToolID, Status: "inProgress", Changes: []FileChange{m.change(e.ToolName, in)}}
	}
	args := e.Input
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return DynamicToolCallItem{Type: "dynamicToolCall", ID: e.ToolID, Tool: e.ToolName, Arguments: args, Status: "inProgress"}
}

// change describes an edit before it runs: Write makes a file ("add")
// when none is there yet.
func (m *mapper) change(tool string, in map[string]any) FileChange {
	str := func(k string) string { s, _ := in[k].(string); return s }
	path := firstNonEmpty(str("file_path"), str("notebook_path"))
	if path != "" && !filepath.IsAbs(path) {
		path = filepath.Join(m.cwd, path)
	}
	fc := FileChange{Path: path, Kind: ChangeKind{Type: "update"}}
	switch tool {
	case "Write":
		if _, err := os.Stat(path); err != nil {
			fc.Kind.Type = "add"
		}
		fc.Diff = lines("+", str("content"))
	case "Edit":
		fc.Diff = lines("-", str("old_string")) + lines("+", str("new_string"))
	case "MultiEdit":
		edits, _ := in["edits"].([]any)
		for _, x := range edits {
			e, _ := x.(map[string]any)
			o, _ := e["old_string"].(string)
			n, _ := e["new_string"].(string)
			fc.Diff += lines("-", o) + lines("+", n)
		}
	case "NotebookEdit":
		fc.Diff = lines("+", str("new_source"))
	}
	return fc
}

func lines(prefix, s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n") {
		b.WriteString(prefix + strings.TrimSuffix(l, "\n") + "\n")
	}
	return b.String()
}

var exitLine = regexp.MustCompile(`(?:\n|^)Exit code: (-?\d+)$`)

// finish completes a call's item with its result.
func finish(c *call, e event.Event) ThreadItem {
	ms := time.Since(c.started).Milliseconds()
	status := "completed"
	if e.IsError {
		status = "failed"
	}
	if c.declined {
		status = "declined"
	}
	switch it := c.item.(type) {
	case CommandExecutionItem:
		it.Status, it.DurationMs = status, &ms
		out := e.Text
		if m := exitLine.FindStringSubmatchIndex(out); m != nil {
			code, _ := strconv.Atoi(out[m[2]:m[3]])
			it.ExitCode = &code
			out = out[:m[0]]
			if m[0] > 0 {
				out += "\n"
			}
		}
		it.AggregatedOutput = &out
		return it
	case FileChangeItem:
		it.Status = status
		return it
	case DynamicToolCallItem:
		ok := !e.IsError
		if status == "declined" {
			status = "failed" // dynamicToolCall has no declined status
		}
		it.Status, it.Success, it.DurationMs = status, &ok, &ms
		it.ContentItems = []ContentItem{{Type: "inputText", Text: e.Text}}
		return it
	}
	return c.item
}

func (m *mapper) started(it ThreadItem) ItemStartedNotification {
	return ItemStartedNotification{ThreadID: m.threadID, TurnID: m.turnID, Item: it, StartedAtMs: time.Now().UnixMilli()}
}

func (m *mapper) completed(it ThreadItem) ItemCompletedNotification {
	return ItemCompletedNotification{ThreadID: m.threadID, TurnID: m.turnID, Item: it, CompletedAtMs: time.Now().UnixMilli()}
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
