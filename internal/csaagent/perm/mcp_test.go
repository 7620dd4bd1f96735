package perm_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/perm"
	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// mcpTool stands for a tool of an MCP server (package mcp's adapter).
type mcpTool struct {
	name     string
	readOnly bool
}

func (m mcpTool) Name() string                         { return m.name }
func (m mcpTool) Description() string                  { return "" }
func (m mcpTool) Schema() json.RawMessage              { return nil }
func (m mcpTool) ConcurrencySafe(json.RawMessage) bool { return m.readOnly }
func (m mcpTool) ReadOnly(json.RawMessage) bool        { return m.readOnly }
func (m mcpTool) Subject(json.RawMessage) string       { return "" }
func (m mcpTool) Run(context.Context, *tool.Env, json.RawMessage) (tool.Result, error) {
	return tool.Result{}, nil
}

// Rules name one MCP tool, or every tool of a server (mcp__server and
// mcp__server__*, Claude Code's forms); a read-only hint counts in plan
// mode only.
func TestMCPRules(t *testing.T) {
	allow := mustRules(t, "mcp__files", "mcp__web__fetch", "mcp__db__*")
	deny := mustRules(t, "mcp__files__delete")
	p := perm.NewPolicy(perm.Default, allow, deny, "/w", nil)
	for _, c := range []struct {
		tool  string
		allow bool
		why   string
	}{
		{"mcp__files__read", true, "mcp__files"},
		{"mcp__files__delete", false, "denied by the permission rule mcp__files__delete"},
		{"mcp__filesystem__read", false, "the rule mcp__filesystem__read would allow it"},
		{"mcp__web__fetch", true, "mcp__web__fetch"},
		{"mcp__web__post", false, "needs permission"},
		{"mcp__db__query", true, "mcp__db__*"},
	} {
		d := p.Check(mcpTool{name: c.tool}, nil)
		if d.Allow != c.allow || !strings.Contains(d.Reason, c.why) {
			t.Errorf("%s: %+v, want allow=%v with %q", c.tool, d, c.allow, c.why)
		}
	}
	// The server's read-only hint lets a tool run in plan mode, with a
	// rule; it never stands in for one.
	if d := p.Check(mcpTool{name: "mcp__x__look", readOnly: true}, nil); d.Allow {
		t.Errorf("a read-only MCP tool without a rule: %+v", d)
	}
	plan := perm.NewPolicy(perm.Plan, mustRules(t, "mcp__x"), nil, "/w", nil)
	if d := plan.Check(mcpTool{name: "mcp__x__look", readOnly: true}, nil); !d.Allow {
		t.Errorf("a read-only MCP tool in plan mode: %+v", d)
	}
	if d := plan.Check(mcpTool{name: "mcp__x__change"}, nil); d.Allow || !strings.Contains(d.Reason, "plan mode") {
		t.Errorf("a changing MCP tool in plan mode: %+v", d)
	}
	if d := plan.Check(mcpTool{name: "mcp__y__look", readOnly: true}, nil); d.Allow {
		t.Errorf("a read-only MCP tool without a rule in plan mode: %+v", d)
	}
	for _, bad := range []string{"mcp__*", "mcp__a*", "files__*"} {
		if _, err := perm.ParseRule(bad); err == nil {
			t.Errorf("rule %q accepted", bad)
		}
	}
}
