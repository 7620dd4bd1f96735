package hooks

import (
	"context"
	"encoding/json"

	"github.com/csa-dev/csa/internal/csaagent/loop"
	"github.com/csa-dev/csa/internal/csaagent/tool"
)

var _ loop.Hooks = (*Engine)(nil)

func toolFields(c loop.Call) map[string]any {
	return map[string]any{"tool_name": c.Tool.Name(), "tool_input": c.Input, "tool_use_id": c.ID}
}

// BeforeTool runs PreToolUse: a hook may deny the call (exit 2, or
// permissionDecision deny), approve it, ask for it to be confirmed, change
// its input or add context. Deny wins over ask over allow.
func (e *Engine) BeforeTool(ctx context.Context, c loop.Call) loop.Verdict {
	e.start(c.ID)
	a := e.fireIf(ctx, PreToolUse, c.Tool.Name(), c.Who, toolFields(c), &c)
	v := loop.Verdict{Decision: a.decision, Reason: join(a.decisionReasons), Context: join(a.context)}
	if a.block {
		v.Decision, v.Reason = loop.Deny, join(append(a.reasons, a.decisionReasons...))
	}
	if a.stop {
		v.Stop = join(a.stopReasons)
	}
	if a.input != nil && v.Decision != loop.Deny {
		v.Input = updated(c.Input, a.input)
	}
	return v
}

// updated sets the hooks' fields on the call's input.
func updated(input json.RawMessage, fields map[string]any) json.RawMessage {
	m := map[string]any{}
	_ = json.Unmarshal(input, &m) // a non-object input is replaced
	for k, v := range fields {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return b
}

// AfterTool runs PostToolUse, or PostToolUseFailure for a failed call:
// what a blocking hook says, and any additional context, reach the model.
func (e *Engine) AfterTool(ctx context.Context, c loop.Call, res tool.Result) loop.Aftermath {
	f := toolFields(c)
	if d, ok := e.took(c.ID); ok {
		f["duration_ms"] = d.Milliseconds()
	}
	event := PostToolUse
	if res.IsError {
		event = PostToolUseFailure
		f["error"], f["is_interrupt"] = res.Output, ctx.Err() != nil
	} else {
		f["tool_response"] = res.Output
		if res.Response != nil {
			f["tool_response"] = res.Response
		}
	}
	a := e.fireIf(ctx, event, c.Tool.Name(), c.Who, f, &c)
	var out loop.Aftermath
	said := append(append(a.reasons, a.context...), e.asyncSaid()...)
	if c.Who.ID == "" { // the notices are the main agent's, as in Claude Code
		said = append(said, e.midTurnWakes()...)
	}
	out.Context = join(said)
	if a.stop {
		out.Stop = join(a.stopReasons)
	}
	return out
}

// BeforeStop runs Stop (SubagentStop in a subagent): a blocking hook's
// reason is the next user message and the agent goes on.
func (e *Engine) BeforeStop(ctx context.Context, who loop.Who, active bool, last string) string {
	event := Stop
	if who.ID != "" {
		event = SubagentStop
	}
	f := map[string]any{"stop_hook_active": active, "last_assistant_message": last}
	if event == SubagentStop && e != nil && e.o.SubagentTranscript != nil {
		f["agent_transcript_path"] = e.o.SubagentTranscript(who.ID)
	}
	a := e.fire(ctx, event, who.Type, who, f)
	if !a.block || a.stop {
		return ""
	}
	return join(a.reasons)
}

// StopAfter runs the Stop hooks after a turn that ended otherwise than by
// the model's answer (interrupted, failed, a limit, a plan): csa's
// classifier learns from Stop that the turn is over. They cannot keep
// the agent going then.
func (e *Engine) StopAfter(ctx context.Context, last string) {
	e.fire(ctx, Stop, "", loop.Who{}, map[string]any{"stop_hook_active": false, "last_assistant_message": last})
}

// SessionStart runs when the session starts (source: startup or resume)
// and returns the context the hooks add for the model.
func (e *Engine) SessionStart(ctx context.Context, source string) string {
	return join(e.fire(ctx, SessionStart, source, loop.Who{}, map[string]any{"source": source}).context)
}

// SessionEnd runs when the session ends; reason is Claude Code's
// ("prompt_input_exit", "other"...).
func (e *Engine) SessionEnd(ctx context.Context, reason string) {
	e.fire(ctx, SessionEnd, reason, loop.Who{}, map[string]any{"reason": reason})
}

// Prompt is what UserPromptSubmit hooks said of a prompt.
type Prompt struct {
	Blocked string // why the prompt must not be sent ("" when it may)
	Context string // more for the model, with the prompt
}

// UserPromptSubmit runs before a prompt is sent.
func (e *Engine) UserPromptSubmit(ctx context.Context, prompt string) Prompt {
	e.newPrompt()
	a := e.fire(ctx, UserPromptSubmit, "", loop.Who{}, map[string]any{"prompt": prompt})
	p := Prompt{Context: join(append(a.context, e.asyncSaid()...))}
	switch {
	case a.stop:
		p.Blocked = join(a.stopReasons)
	case a.block:
		p.Blocked = join(a.reasons)
	}
	return p
}

// PreCompact runs before the conversation is summarised (trigger: manual
// or auto).
func (e *Engine) PreCompact(ctx context.Context, trigger, instructions string) {
	e.fire(ctx, PreCompact, trigger, loop.Who{}, map[string]any{"trigger": trigger, "custom_instructions": instructions})
}

// Notify runs Notification (kind is Claude Code's notification_type).
func (e *Engine) Notify(ctx context.Context, who loop.Who, kind, title, message string) {
	e.fire(ctx, Notification, kind, who, map[string]any{"message": message, "title": title, "notification_type": kind})
}

// SubagentStart runs as a subagent starts and returns the context the
// hooks add to its prompt.
func (e *Engine) SubagentStart(ctx context.Context, id, agentType string) string {
	return join(e.fire(ctx, SubagentStart, agentType, loop.Who{ID: id, Type: agentType}, nil).context)
}

// PermissionRequest runs when a call would need a person's approval: a
// hook's allow or deny decides it (deny wins); "" leaves it undecided.
func (e *Engine) PermissionRequest(ctx context.Context, c loop.Call) (decision, reason string) {
	f := toolFields(c)
	delete(f, "tool_use_id") // Claude Code's PermissionRequest input has none
	a := e.fireIf(ctx, PermissionRequest, c.Tool.Name(), c.Who, f, &c)
	switch {
	case a.block || a.decision == loop.Deny:
		return loop.Deny, firstOf(join(append(a.reasons, a.decisionReasons...)), "denied by a PermissionRequest hook")
	case a.decision == loop.Allow:
		return loop.Allow, firstOf(join(a.decisionReasons), "allowed by a PermissionRequest hook")
	}
	return "", ""
}
