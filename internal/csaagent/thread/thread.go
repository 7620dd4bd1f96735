// Package thread is what the protocol front ends of csa-agent (the
// app-server, the ACP agent, the MCP server mode) drive: conversations
// they start, resume and list, and turns they run with their own event
// sink and their own way of asking a person to approve a call. Package
// cli implements it with the same session assembly as the command line,
// so every front end gets the same tools, permissions, hooks and store.
package thread

import (
	"context"
	"encoding/json"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/event"
)

// Options choose a new conversation's setting; "" keeps csa-agent's
// configured default.
type Options struct {
	Cwd            string
	Model          string // provider/model
	PermissionMode string // default, acceptEdits, plan, bypassPermissions
	// SessionID names a new conversation (a UUID); "" makes one.
	SessionID string
	// MCPConfig adds MCP servers to the configured ones, each a JSON
	// document in Claude Code's shape {"mcpServers": {NAME: {...}}}, as
	// --mcp-config takes them (an editor's servers).
	MCPConfig []string
}

// Info describes a stored conversation.
type Info struct {
	ID      string    `json:"id"`
	Cwd     string    `json:"cwd"`
	Model   string    `json:"model"`
	Preview string    `json:"preview"` // its first user message, shortened
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

// Host starts and finds conversations.
type Host interface {
	Start(ctx context.Context, o Options) (Thread, error)
	// Resume reopens a stored conversation; o may change its model and
	// permission mode (its Cwd is the stored one when "").
	Resume(ctx context.Context, id string, o Options) (Thread, error)
	// List returns the stored conversations, the latest first.
	List(ctx context.Context) ([]Info, error)
	// Models lists the models csa-agent is configured with (provider/model).
	Models() []string
	// Config is csa-agent's effective configuration, for a client to show.
	Config() map[string]any
}

// Thread is one open conversation. Its turns run one at a time.
type Thread interface {
	ID() string
	Model() string
	Cwd() string
	// Run adds input as the user's message and runs the loop until the
	// model stops calling tools, ctx is cancelled (an interrupt) or it
	// fails. Events go to sink; calls that need a person's permission go
	// to approve (nil: they are denied, as in a headless run).
	Run(ctx context.Context, input string, sink event.Sink, approve Approver) Outcome
	// Close ends the conversation's processes (background shells,
	// subagents); its record stays.
	Close()
}

// Outcome is how a turn ended.
type Outcome struct {
	// End is the loop's: done, max_turns, budget, interrupted, error,
	// stopped.
	End     string
	Text    string // the final answer, or the failure
	IsError bool
	Class   string // the failure class when IsError
	Turns   int
}

// Approver asks a person whether a tool call may run. It returns when
// they answer or ctx ends (the call is then declined).
type Approver func(ctx context.Context, r Request) Decision

// Request is a tool call waiting for permission.
type Request struct {
	ToolID   string
	ToolName string
	Input    json.RawMessage
	// Kind is "command" (Bash), "file" (a file edit, Path set) or "tool".
	Kind    string
	Command string
	Path    string
	Reason  string // why it needs permission
}

// Decision is a person's answer.
type Decision string

const (
	Accept           Decision = "accept"           // this call
	AcceptForSession Decision = "acceptForSession" // this call and the same ones after it
	Decline          Decision = "decline"
)
