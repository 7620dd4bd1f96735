package acpagent

import (
	"context"
	"encoding/json"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/thread"
)

// updater turns a turn's events into session/update notifications. It is
// an event.Sink: parallel tools emit at once, so it keeps its own state
// under a lock.
type updater struct {
	a   *Agent
	ctx context.Context
	th  thread.Thread

	mu     sync.Mutex
	inputs map[string]json.RawMessage // tool calls seen, by id
	total  *llm.Usage
}

func (a *Agent) updater(ctx context.Context, th thread.Thread) *updater {
	return &updater{a: a, ctx: ctx, th: th, inputs: map[string]json.RawMessage{}}
}

func (u *updater) send(up acp.SessionUpdate) {
	// A client gone away ends the connection; the turn ends on its own.
	u.a.client().SessionUpdate(u.ctx, acp.SessionNotification{SessionId: acp.SessionId(u.th.ID()), Update: up})
}

// Emit maps the main agent's events; a subagent's show as its Task call.
func (u *updater) Emit(e event.Event) {
	if e.Agent != "" {
		return
	}
	switch e.Kind {
	case event.TextDelta:
		u.send(acp.UpdateAgentMessageText(e.Text))
	case event.ThinkingDelta:
		u.send(acp.UpdateAgentThoughtText(e.Text))
	case event.ToolQueued:
		u.mu.Lock()
		u.inputs[e.ToolID] = e.Input
		u.mu.Unlock()
		u.send(startCall(u.th.Cwd(), e.ToolID, e.ToolName, e.Input))
	case event.ToolStarted:
		u.send(acp.UpdateToolCall(acp.ToolCallId(e.ToolID), acp.WithUpdateStatus(acp.ToolCallStatusInProgress)))
	case event.ToolFinished:
		u.send(finishCall(e.ToolID, e.Text, e.IsError))
		u.mu.Lock()
		input := u.inputs[e.ToolID]
		delete(u.inputs, e.ToolID)
		u.mu.Unlock()
		if e.ToolName == "TodoWrite" && !e.IsError {
			if plan, ok := planOf(input); ok {
				u.send(plan)
			}
		}
	case event.PlanMode:
		// The model entered or left plan mode (e.Mode is the new one).
		u.send(acp.SessionUpdate{CurrentModeUpdate: &acp.SessionCurrentModeUpdate{CurrentModeId: acp.SessionModeId(e.Mode)}})
	case event.Result:
		u.mu.Lock()
		u.total = e.Usage
		u.mu.Unlock()
	}
}

// usage is the turn's token totals, for the prompt's answer.
func (u *updater) usage() *acp.Usage {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.total == nil {
		return nil
	}
	t := u.total
	in := int(t.InputTokens + t.CacheReadTokens + t.CacheWriteTokens)
	out := &acp.Usage{InputTokens: in, OutputTokens: int(t.OutputTokens), TotalTokens: in + int(t.OutputTokens)}
	if t.CacheReadTokens > 0 {
		out.CachedReadTokens = acp.Ptr(int(t.CacheReadTokens))
	}
	return out
}

func startCall(cwd, id, name string, input json.RawMessage) acp.SessionUpdate {
	c := toolCall(cwd, name, input)
	return acp.StartToolCall(acp.ToolCallId(id), c.title, acp.WithStartKind(c.kind),
		acp.WithStartStatus(acp.ToolCallStatusPending), acp.WithStartLocations(c.locations), acp.WithStartRawInput(c.input))
}

func finishCall(id, output string, failed bool) acp.SessionUpdate {
	status := acp.ToolCallStatusCompleted
	if failed {
		status = acp.ToolCallStatusFailed
	}
	return acp.UpdateToolCall(acp.ToolCallId(id), acp.WithUpdateStatus(status),
		acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(output))}))
}

// planOf is TodoWrite's list as an ACP plan.
func planOf(input json.RawMessage) (acp.SessionUpdate, bool) {
	var in struct {
		Todos []struct {
			Content string `json:"content"`
			Status  string `json:"status"`
		} `json:"todos"`
	}
	if json.Unmarshal(input, &in) != nil {
		return acp.SessionUpdate{}, false
	}
	entries := make([]acp.PlanEntry, 0, len(in.Todos))
	for _, t := range in.Todos {
		status := acp.PlanEntryStatusPending
		switch t.Status {
		case "in_progress":
			status = acp.PlanEntryStatusInProgress
		case "completed":
			status = acp.PlanEntryStatusCompleted
		}
		entries = append(entries, acp.PlanEntry{Content: t.Content, Status: status, Priority: acp.PlanEntryPriorityMedium})
	}
	return acp.UpdatePlan(entries...), true
}

// replay sends a stored conversation as the updates that made it: the
// user's messages, the agent's text and thinking, each tool call and its
// result.
func (a *Agent) replay(ctx context.Context, th thread.Thread, history []llm.Message) error {
	send := func(up acp.SessionUpdate) error {
		return a.client().SessionUpdate(ctx, acp.SessionNotification{SessionId: acp.SessionId(th.ID()), Update: up})
	}
	for _, m := range history {
		for _, b := range m.Content {
			var up acp.SessionUpdate
			switch {
			case b.Type == llm.BlockText && m.Role == llm.User:
				up = acp.UpdateUserMessageText(b.Text)
			case b.Type == llm.BlockText:
				up = acp.UpdateAgentMessageText(b.Text)
			case b.Type == llm.BlockThinking:
				up = acp.UpdateAgentThoughtText(b.Text)
			case b.Type == llm.BlockToolUse:
				up = startCall(th.Cwd(), b.ID, b.Name, b.Input)
			case b.Type == llm.BlockToolResult:
				up = finishCall(b.ToolUseID, b.Content, b.IsError)
			default:
				continue
			}
			if err := send(up); err != nil {
				return err
			}
		}
	}
	return nil
}
