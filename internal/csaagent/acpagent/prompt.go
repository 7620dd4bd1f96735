package acpagent

import (
	"context"
	"fmt"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/csa-dev/csa/internal/csaagent/thread"
)

// Prompt runs one turn of the session's thread, streaming its events as
// session/update notifications, and says why it stopped.
func (a *Agent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	s := a.session(string(p.SessionId))
	if s == nil {
		return acp.PromptResponse{}, unknown(p.SessionId)
	}
	input, err := promptText(p.Prompt)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	// ctx is cancelled by session/cancel (the SDK's doing) and by Cancel
	// below; the notifications of the turn's end must still go out.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
	}()
	up := a.updater(context.WithoutCancel(ctx), s.th)
	out := s.th.Run(ctx, input, up, a.approver(s.th))
	resp := acp.PromptResponse{StopReason: acp.StopReasonEndTurn, Usage: up.usage()}
	switch {
	case ctx.Err() != nil:
		resp.StopReason = acp.StopReasonCancelled
	case out.End == "max_turns":
		resp.StopReason = acp.StopReasonMaxTurnRequests
	case out.End == "budget":
		resp.StopReason = acp.StopReasonMaxTokens
	case out.End == "interrupted":
		resp.StopReason = acp.StopReasonCancelled
	case out.IsError:
		return resp, acp.NewInternalError(map[string]any{"error": out.Text, "class": out.Class})
	}
	return resp, nil
}

// Cancel ends the session's turn; Prompt then answers cancelled.
func (a *Agent) Cancel(_ context.Context, p acp.CancelNotification) error {
	if s := a.session(string(p.SessionId)); s != nil {
		s.stop()
	}
	return nil
}

// promptText is the user's message: text blocks as they are, embedded
// resources as context blocks, links as references to read.
func promptText(blocks []acp.ContentBlock) (string, error) {
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			parts = append(parts, fmt.Sprintf("<context uri=%q>\n%s\n</context>", r.Uri, r.Text))
		case b.ResourceLink != nil:
			parts = append(parts, "@"+strings.TrimPrefix(b.ResourceLink.Uri, "file://"))
		case b.Resource != nil:
			return "", acp.NewInvalidParams(map[string]any{"error": "binary embedded resources are not supported: csa-agent takes text"})
		default:
			return "", acp.NewInvalidParams(map[string]any{"error": "image and audio blocks are not supported: csa-agent takes text and embedded text context"})
		}
	}
	text := strings.TrimSpace(strings.Join(parts, "\n\n"))
	if text == "" {
		return "", acp.NewInvalidParams(map[string]any{"error": "the prompt is empty"})
	}
	return text, nil
}

// Permission options offered for a call no rule allows.
const (
	allowOnce   = "allow_once"
	allowAlways = "allow_always"
	rejectOnce  = "reject_once"
)

// approver asks the client about a call (session/request_permission): an
// option selected maps to the thread's decision; cancelled, or no answer,
// declines.
func (a *Agent) approver(th thread.Thread) thread.Approver {
	return func(ctx context.Context, r thread.Request) thread.Decision {
		call := toolCall(th.Cwd(), r.ToolName, r.Input)
		res, err := a.client().RequestPermission(ctx, acp.RequestPermissionRequest{
			SessionId: acp.SessionId(th.ID()),
			ToolCall: acp.ToolCallUpdate{ToolCallId: acp.ToolCallId(r.ToolID), Title: acp.Ptr(call.title),
				Kind: acp.Ptr(call.kind), Status: acp.Ptr(acp.ToolCallStatusPending), Locations: call.locations,
				RawInput: call.input},
			Options: []acp.PermissionOption{
				{OptionId: allowOnce, Kind: acp.PermissionOptionKindAllowOnce, Name: "Allow"},
				{OptionId: allowAlways, Kind: acp.PermissionOptionKindAllowAlways, Name: "Allow for this session"},
				{OptionId: rejectOnce, Kind: acp.PermissionOptionKindRejectOnce, Name: "Reject"},
			},
		})
		if err != nil || res.Outcome.Selected == nil {
			return thread.Decline
		}
		switch res.Outcome.Selected.OptionId {
		case allowOnce:
			return thread.Accept
		case allowAlways:
			return thread.AcceptForSession
		}
		return thread.Decline
	}
}
