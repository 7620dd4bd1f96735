package server

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type sendIn struct {
	SessionID string `json:"session_id" jsonschema:"an interactive session's id (or a unique prefix)"`
	Text      string `json:"text,omitempty" jsonschema:"text to type, pasted as one input (several lines included)"`
	// Enter is a pointer: absent means true.
	Enter *bool    `json:"enter,omitempty" jsonschema:"submit the text with Enter (default true)"`
	Keys  []string `json:"keys,omitempty" jsonschema:"tmux key names to press after the text: Enter, C-c, Escape, Up, ..."`
}

// send is `csa send`; the text goes on stdin (--text-file -), byte for
// byte.
func (t *tools) send(ctx context.Context, req *mcp.CallToolRequest, in sendIn) (*mcp.CallToolResult, any, error) {
	if in.SessionID == "" {
		return nil, nil, errors.New("session_id is required")
	}
	if in.Text == "" && len(in.Keys) == 0 {
		return nil, nil, errors.New("text or keys is required")
	}
	args := []string{"send", in.SessionID}
	if in.Text != "" {
		args = append(args, "--text-file", "-")
		if in.Enter == nil || *in.Enter {
			args = append(args, "--enter")
		}
	}
	for _, k := range in.Keys {
		args = append(args, "--keys", k)
	}
	return t.callIn(ctx, req, args, in.Text)
}
