package mcpserve

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/csaagent/thread"
)

// approvalSchema is the form put to the user: one choice.
var approvalSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"decision": map[string]any{
			"type":        "string",
			"enum":        []string{string(thread.Accept), string(thread.AcceptForSession), string(thread.Decline)},
			"description": "accept: this call; acceptForSession: this call and the same ones for the rest of the conversation; decline: do not run it",
		},
	},
	"required": []string{"decision"},
}

// multiRoundTrip is the first protocol version that forbids a server's
// own requests during a call (SEP-2322): questions go back in the call's
// result and the client calls again with the answers.
const multiRoundTrip = "2026-07-28"

// approver asks the client's user, by elicitation, about a call no rule
// allows. A client without elicitation gets nil: such calls are denied,
// as in a headless run. So does a client on protocol 2026-07-28 or later
// for now: a turn cannot yet be parked across its multi-round-trip calls.
// Declining the form, cancelling it or a failed request all decline the
// call.
func approver(req *mcp.CallToolRequest, conv string) thread.Approver {
	ip := req.Session.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil || ip.ProtocolVersion >= multiRoundTrip {
		return nil
	}
	return func(ctx context.Context, r thread.Request) thread.Decision {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
			Mode:            "form",
			Message:         approvalMessage(r),
			RequestedSchema: approvalSchema,
			Meta: mcp.Meta{"conversationId": conv, "toolName": r.ToolName, "toolId": r.ToolID,
				"kind": r.Kind, "command": r.Command, "path": r.Path, "input": r.Input},
		})
		if err != nil || res.Action != "accept" {
			return thread.Decline
		}
		switch d, _ := res.Content["decision"].(string); thread.Decision(d) {
		case thread.Accept:
			return thread.Accept
		case thread.AcceptForSession:
			return thread.AcceptForSession
		}
		return thread.Decline
	}
}

func approvalMessage(r thread.Request) string {
	what := r.ToolName + " " + brief(string(r.Input))
	switch r.Kind {
	case "command":
		what = "run the command: " + r.Command
	case "file":
		what = fmt.Sprintf("%s the file %s", r.ToolName, r.Path)
	}
	msg := "csa-agent wants to " + what
	if r.Reason != "" {
		msg += "\n(" + r.Reason + ")"
	}
	return msg
}
