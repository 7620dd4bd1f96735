package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/csaagent/thread"
)

// The tools' names, after Codex's `codex` and `codex-reply`.
const (
	StartTool = "csa-agent"
	ReplyTool = "csa-agent-reply"
)

const startDescription = `Start a conversation with csa-agent, a coding agent with file, shell and search tools, and run its first turn to the end: it returns the agent's final answer, and the conversation_id to continue with csa-agent-reply.
permission_mode decides which tool calls run unasked: default (reads only), acceptEdits (also file edits in cwd), plan (read-only planning), bypassPermissions (everything). A call no rule allows is put to the user through elicitation when the client supports it, else denied.`

const replyDescription = `Continue a csa-agent conversation (one started with the csa-agent tool, or a stored one) with another prompt; returns the agent's final answer. Turns of one conversation run one after the other.`

// StartIn is the csa-agent tool's input.
type StartIn struct {
	Prompt         string `json:"prompt" jsonschema:"the task or question for the agent"`
	Cwd            string `json:"cwd,omitempty" jsonschema:"the agent's working directory (default: the server's)"`
	Model          string `json:"model,omitempty" jsonschema:"provider/model, e.g. anthropic/claude-sonnet-4-5 (default: csa-agent's configured model)"`
	PermissionMode string `json:"permission_mode,omitempty" jsonschema:"default, acceptEdits, plan or bypassPermissions (default: csa-agent's configured mode)"`
}

// ReplyIn is the csa-agent-reply tool's input.
type ReplyIn struct {
	ConversationID string `json:"conversation_id" jsonschema:"the conversation_id a csa-agent call returned"`
	Prompt         string `json:"prompt" jsonschema:"the next message to the agent"`
}

// Out is both tools' structured result.
type Out struct {
	ConversationID string `json:"conversation_id" jsonschema:"continue with csa-agent-reply and this id"`
	Content        string `json:"content" jsonschema:"the agent's final answer, or why the turn failed"`
	// End is the loop's: done, stopped, interrupted, max_turns, budget, error.
	End   string `json:"end" jsonschema:"how the turn ended: done, stopped, interrupted, max_turns, budget or error"`
	Class string `json:"class,omitempty" jsonschema:"the failure class when the turn failed (auth, rate_limit, ...)"`
	Turns int    `json:"turns" jsonschema:"model requests the turn made"`
}

var modes = []string{"default", "acceptEdits", "plan", "bypassPermissions"}

func (s *Server) start(ctx context.Context, req *mcp.CallToolRequest, in StartIn) (*mcp.CallToolResult, Out, error) {
	if strings.TrimSpace(in.Prompt) == "" {
		return nil, Out{}, errors.New("prompt is required")
	}
	if in.PermissionMode != "" && !contains(modes, in.PermissionMode) {
		return nil, Out{}, fmt.Errorf("permission_mode %q: want one of %s", in.PermissionMode, strings.Join(modes, ", "))
	}
	if in.Cwd != "" {
		abs, err := filepath.Abs(in.Cwd)
		if err != nil {
			return nil, Out{}, fmt.Errorf("cwd %q: %v", in.Cwd, err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return nil, Out{}, fmt.Errorf("cwd %q is not a directory", in.Cwd)
		}
		in.Cwd = abs
	}
	if !s.begin() {
		return nil, Out{}, errClosing
	}
	defer s.turns.Done()
	th, err := s.host.Start(ctx, thread.Options{Cwd: in.Cwd, Model: in.Model, PermissionMode: in.PermissionMode})
	if err != nil {
		return nil, Out{}, fmt.Errorf("start the conversation: %v", err)
	}
	if !s.keep(th) {
		th.Close()
		return nil, Out{}, errClosing
	}
	return s.turn(ctx, req, th, in.Prompt)
}

func (s *Server) reply(ctx context.Context, req *mcp.CallToolRequest, in ReplyIn) (*mcp.CallToolResult, Out, error) {
	if in.ConversationID == "" {
		return nil, Out{}, errors.New("conversation_id is required")
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return nil, Out{}, errors.New("prompt is required")
	}
	if !s.begin() {
		return nil, Out{}, errClosing
	}
	defer s.turns.Done()
	th, err := s.find(ctx, in.ConversationID)
	if err != nil {
		return nil, Out{}, err
	}
	return s.turn(ctx, req, th, in.Prompt)
}

// turn runs one turn of th, ended early by the client's cancel or the
// server's end, and makes its result.
func (s *Server) turn(ctx context.Context, req *mcp.CallToolRequest, th thread.Thread, prompt string) (*mcp.CallToolResult, Out, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.stop, cancel)()
	rep := newReporter(ctx, req, th.ID())
	o := th.Run(ctx, prompt, rep, approver(req, th.ID()))
	rep.close()

	text := o.Text
	if o.End == "interrupted" {
		why := "the client cancelled the call"
		if s.stop.Err() != nil {
			why = "the server is shutting down"
		}
		text = strings.TrimSpace("interrupted: " + why + ". " + text)
	}
	out := Out{ConversationID: th.ID(), Content: text, End: o.End, Turns: o.Turns}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: o.IsError}
	if o.IsError {
		out.Class = o.Class
		res.Content = append(res.Content, &mcp.TextContent{Text: fmt.Sprintf("csa-agent: the turn ended %s%s", o.End, classNote(o.Class))})
	}
	res.Meta = mcp.Meta{"conversationId": th.ID()}
	return res, out, nil
}

func classNote(class string) string {
	if class == "" {
		return ""
	}
	return " (failure class " + class + ")"
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
