// Package server is csa as an MCP server: tools that run sub-agents and
// read, wait for and stop their sessions. Each tool is a csa command run
// with --json, so the MCP server and the command line give the same
// answers and the same genealogy: a call made from inside a csa session
// (the agent that started this server carries CSA_SESSION_ID) makes a child
// session of the caller, under the same depth limit.
package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/mcp/hub"
	"github.com/csa-dev/csa/internal/proc"
)

// Version is reported in the MCP initialize answer.
var Version = "dev"

// CSA runs csa with args and stdin for caller (nil: as this server runs)
// and returns its standard output, its standard error's tail and its exit
// status. User text (a prompt, what is sent to a session) goes on stdin:
// an argument holds no NUL byte and at most 128 KiB.
type CSA func(ctx context.Context, caller *hub.Caller, args []string, stdin string) (stdout []byte, stderr string, exit int, err error)

// Exec is a CSA that runs the csa executable at path through proc, in its
// own process group, stopped (SIGTERM, then SIGKILL) when the call is
// cancelled. For a caller it runs in the caller's directory with the
// caller's session variables in place of this server's.
func Exec(path string) CSA {
	return func(ctx context.Context, caller *hub.Caller, args []string, stdin string) ([]byte, string, int, error) {
		spec := proc.Spec{Path: path, Args: args, Stdin: strings.NewReader(stdin), DieWithParent: true}
		if caller != nil {
			spec.Env, spec.Dir = callerEnv(os.Environ(), caller), caller.Cwd
		}
		c, err := proc.Capture(ctx, spec, 2*time.Second)
		if c == nil {
			return nil, "", -1, err
		}
		return c.Stdout, c.Stderr, c.ExitCode, err
	}
}

// New makes the server with csa's tools.
func New(csa CSA) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "csa", Version: Version}, nil)
	t := &tools{csa: csa}
	mcp.AddTool(s, &mcp.Tool{Name: "run", Description: runDescription}, t.run)
	mcp.AddTool(s, &mcp.Tool{Name: "list_sessions", Description: "List csa sessions of this project (all projects with all=true): id, tool, state, parent, times, as `csa ps --json`."}, t.list)
	mcp.AddTool(s, &mcp.Tool{Name: "session_status", Description: "One session's full record, as `csa inspect --json`: state, result, failure class, usage, genealogy."}, t.status)
	mcp.AddTool(s, &mcp.Tool{Name: "wait", Description: waitDescription}, t.wait)
	mcp.AddTool(s, &mcp.Tool{Name: "send", Description: "Type into an interactive session (one started with interactive=true), as `csa send`: text pasted as one input and submitted, or tmux keys."}, t.send)
	mcp.AddTool(s, &mcp.Tool{Name: "read_log", Description: "A session's output: its answer and transcript as `csa logs --json`, or its normalised events with events=true."}, t.log)
	mcp.AddTool(s, &mcp.Tool{Name: "kill", Description: "Stop a running session (SIGTERM, then SIGKILL after the grace), as `csa kill`."}, t.kill)
	mcp.AddTool(s, &mcp.Tool{Name: "review", Description: reviewDescription}, t.review)
	return s
}

const runDescription = `Run a sub-agent under csa: a supervised, recorded session of a coding agent (claude-code, codex, gemini-cli, opencode, csa-agent, or "auto": one of another model family than the caller's).
With wait=true (the default) it returns the finished session: its result, status, failure class and usage. With wait=false it starts the same run detached (as ` + "`csa run -d`" + `) and returns its session_id at once: it ends by itself; use wait, session_status and read_log with it.
With interactive=true it starts the tool's own interface in tmux instead (as ` + "`csa run -i`" + `) and returns its session_id: that session waits for input after each turn and ends only when its agent exits or it is killed; use send, wait with until="waiting_input", read_log and kill with it.
Called from inside a csa session, the new session is its child.`

const waitDescription = `Wait until the sessions have reached their goal (or any, with any=true), at most timeout_seconds; as ` + "`csa wait --json`" + `.
A headless run's goal is its end; an interactive session's is the state until names (default completed; waiting_input: its turn is over).`

const reviewDescription = `Review changes with one or more sub-agents of other model families (as ` + "`csa review --json`" + `): the uncommitted changes by default, or a branch's changes (branch), a commit range (range, A..B) or files (files).`

type tools struct{ csa CSA }

// call runs csa and turns its answer into a tool result: its JSON output
// as text and structured content, or its error as an error result (the
// model sees why; only a csa that cannot start is a protocol error).
func (t *tools) call(ctx context.Context, req *mcp.CallToolRequest, args []string, okExits ...int) (*mcp.CallToolResult, any, error) {
	return t.callIn(ctx, req, args, "", okExits...)
}

// callIn is call with stdin for csa.
func (t *tools) callIn(ctx context.Context, req *mcp.CallToolRequest, args []string, stdin string, okExits ...int) (*mcp.CallToolResult, any, error) {
	// --json goes right after the command, before any "--".
	out, stderr, exit, err := t.csa(ctx, callerOf(req), append([]string{args[0], "--json"}, args[1:]...), stdin)
	if exit < 0 && err != nil {
		return nil, nil, fmt.Errorf("csa: %w", err)
	}
	ok := exit == 0
	for _, e := range okExits {
		ok = ok || exit == e
	}
	text := strings.TrimSpace(string(out))
	if text == "" {
		text = strings.TrimSpace(stderr)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: !ok}
	if !ok && stderr != "" && !strings.Contains(text, strings.TrimSpace(stderr)) {
		res.Content = append(res.Content, &mcp.TextContent{Text: fmt.Sprintf("csa exited %d: %s", exit, strings.TrimSpace(stderr))})
	}
	var structured map[string]any
	if json.Unmarshal(out, &structured) == nil {
		res.StructuredContent = structured
	}
	return res, nil, nil
}
