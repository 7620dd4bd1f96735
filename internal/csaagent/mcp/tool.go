package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// mcpTool is one tool of a server, offered to the model as
// mcp__SERVER__TOOL with the server's description and input schema.
type mcpTool struct {
	c        *conn
	name     string // mcp__SERVER__TOOL
	remote   string // the server's own name for it
	desc     string
	schema   json.RawMessage
	readOnly bool
}

// newTool adapts t; ok is false for a tool whose name the model APIs
// would refuse (too long), which would otherwise fail every request.
func newTool(c *conn, t *sdk.Tool) (tool.Tool, bool) {
	name := ToolName(c.server.Name, t.Name)
	if len(name) > maxToolName {
		return nil, false
	}
	schema := json.RawMessage(`{"type":"object"}`)
	if t.InputSchema != nil {
		if b, err := json.Marshal(t.InputSchema); err == nil {
			schema = b
		}
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	return &mcpTool{c: c, name: name, remote: t.Name, desc: desc, schema: schema,
		readOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint}, true
}

func (t *mcpTool) Name() string            { return t.name }
func (t *mcpTool) Description() string     { return t.desc }
func (t *mcpTool) Schema() json.RawMessage { return t.schema }

// ConcurrencySafe and ReadOnly are the server's readOnlyHint, as in
// Claude Code: such calls may run together and in plan mode (package perm
// still wants an allow rule for every MCP tool).
func (t *mcpTool) ConcurrencySafe(json.RawMessage) bool { return t.readOnly }
func (t *mcpTool) ReadOnly(json.RawMessage) bool        { return t.readOnly }

// Subject is "": rules name MCP tools (or their server) only.
func (t *mcpTool) Subject(json.RawMessage) string { return "" }

// Run calls the tool on its server within the server's call timeout.
// Every failure (the server gone, a timeout, a protocol error) is the
// model's to see: a server's trouble does not end the run.
func (t *mcpTool) Run(ctx context.Context, _ *tool.Env, input json.RawMessage) (tool.Result, error) {
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	ctx, cancel := context.WithTimeout(ctx, t.c.callTimeout)
	defer cancel()
	res, err := t.c.session.CallTool(ctx, &sdk.CallToolParams{Name: t.remote, Arguments: input})
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return tool.Errorf("MCP server %s: %s did not answer within %v", t.c.server.Name, t.remote, t.c.callTimeout), nil
	case err != nil:
		return tool.Errorf("MCP server %s: %s failed: %v", t.c.server.Name, t.remote, err), nil
	}
	return resultOf(res), nil
}

var _ tool.Tool = (*mcpTool)(nil)

// String names the tool in messages.
func (t *mcpTool) String() string {
	return fmt.Sprintf("%s (%s on %s)", t.name, t.remote, t.c.server.Name)
}
