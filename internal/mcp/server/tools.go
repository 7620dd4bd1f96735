package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type runIn struct {
	Prompt string `json:"prompt" jsonschema:"the task for the sub-agent"`
	Tool   string `json:"tool,omitempty" jsonschema:"claude-code, codex, gemini-cli, opencode, csa-agent or auto (default: csa's default tool)"`
	Model  string `json:"model,omitempty" jsonschema:"the model to ask the tool for"`
	Tier   string `json:"tier,omitempty" jsonschema:"a configured tier instead of tool and model"`
	Effort string `json:"effort,omitempty" jsonschema:"thinking effort: low, medium or high"`
	Cwd    string `json:"cwd,omitempty" jsonschema:"working directory of the agent"`
	// Wait is a pointer: absent means true.
	Wait           *bool `json:"wait,omitempty" jsonschema:"wait for the result (default true); false starts the run detached and returns its session id at once"`
	Interactive    bool  `json:"interactive,omitempty" jsonschema:"start the tool's own interface in tmux and return its session id at once; type into it with send"`
	TimeoutSeconds int   `json:"timeout_seconds,omitempty" jsonschema:"stop the run after this long (0: csa's default)"`
}

// run is `csa run`: in the foreground, detached (-d: the same headless
// run, which ends by itself) or, only when asked, interactive (-i). The
// prompt goes on stdin ("-"), byte for byte.
func (t *tools) run(ctx context.Context, req *mcp.CallToolRequest, in runIn) (*mcp.CallToolResult, any, error) {
	if in.Prompt == "" {
		return nil, nil, errors.New("prompt is required")
	}
	args := []string{"run"}
	switch {
	case in.Interactive && in.Wait != nil && *in.Wait:
		return nil, nil, errors.New("wait=true cannot go with interactive=true: an interactive session returns its id at once (use the wait tool with until)")
	case in.Interactive:
		args = append(args, "--interactive")
	case in.Wait != nil && !*in.Wait:
		args = append(args, "--detach")
	}
	for _, f := range []struct{ flag, v string }{{"--tool", in.Tool}, {"--model", in.Model}, {"--tier", in.Tier},
		{"--effort", in.Effort}, {"--cd", in.Cwd}} {
		if f.v != "" {
			args = append(args, f.flag, f.v)
		}
	}
	if in.TimeoutSeconds > 0 { // csa refuses it for an interactive session, saying why
		args = append(args, "--timeout", strconv.Itoa(in.TimeoutSeconds)+"s")
	}
	return t.callIn(ctx, req, append(args, "-"), in.Prompt)
}

type listIn struct {
	All bool `json:"all,omitempty" jsonschema:"every project's sessions, not only this project's"`
}

func (t *tools) list(ctx context.Context, req *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, any, error) {
	args := []string{"ps"}
	if in.All {
		args = append(args, "--all")
	}
	return t.call(ctx, req, args)
}

type sessionIn struct {
	SessionID string `json:"session_id" jsonschema:"a session id (or a unique prefix)"`
}

func (t *tools) status(ctx context.Context, req *mcp.CallToolRequest, in sessionIn) (*mcp.CallToolResult, any, error) {
	if in.SessionID == "" {
		return nil, nil, errors.New("session_id is required")
	}
	return t.call(ctx, req, []string{"inspect", in.SessionID})
}

type waitIn struct {
	SessionIDs     []string `json:"session_ids" jsonschema:"the sessions to wait for"`
	Any            bool     `json:"any,omitempty" jsonschema:"return when one of them has reached its goal"`
	Until          string   `json:"until,omitempty" jsonschema:"for interactive sessions: the state to wait for, e.g. waiting_input (default completed)"`
	TimeoutSeconds int      `json:"timeout_seconds,omitempty" jsonschema:"give up after this long (0: wait until they end)"`
}

func (t *tools) wait(ctx context.Context, req *mcp.CallToolRequest, in waitIn) (*mcp.CallToolResult, any, error) {
	if len(in.SessionIDs) == 0 {
		return nil, nil, errors.New("session_ids is required")
	}
	args := []string{"wait"}
	if in.Any {
		args = append(args, "--any")
	}
	if in.Until != "" {
		args = append(args, "--until", in.Until)
	}
	if in.TimeoutSeconds > 0 {
		args = append(args, "--timeout", fmt.Sprintf("%ds", in.TimeoutSeconds))
	}
	// 1 (a session failed) and 124 (timed out) are answers, not errors
	// of the call: the JSON says which.
	return t.call(ctx, req, append(append(args, "--"), in.SessionIDs...), 1, 124)
}

type logIn struct {
	SessionID string `json:"session_id" jsonschema:"a session id (or a unique prefix)"`
	Events    bool   `json:"events,omitempty" jsonschema:"the normalised events (text, tool calls, usage) instead of the transcript"`
}

func (t *tools) log(ctx context.Context, req *mcp.CallToolRequest, in logIn) (*mcp.CallToolResult, any, error) {
	if in.SessionID == "" {
		return nil, nil, errors.New("session_id is required")
	}
	args := []string{"logs", in.SessionID}
	if in.Events {
		args = append(args, "--events")
	}
	return t.call(ctx, req, args)
}

func (t *tools) kill(ctx context.Context, req *mcp.CallToolRequest, in sessionIn) (*mcp.CallToolResult, any, error) {
	if in.SessionID == "" {
		return nil, nil, errors.New("session_id is required")
	}
	return t.call(ctx, req, []string{"kill", in.SessionID})
}

type reviewIn struct {
	Branch    string   `json:"branch,omitempty" jsonschema:"review this branch's changes since it: git diff BRANCH...HEAD"`
	Range     string   `json:"range,omitempty" jsonschema:"review the commits A..B"`
	Files     []string `json:"files,omitempty" jsonschema:"review these files' content"`
	Reviewers int      `json:"reviewers,omitempty" jsonschema:"how many reviewers, 1-8"`
}

func (t *tools) review(ctx context.Context, req *mcp.CallToolRequest, in reviewIn) (*mcp.CallToolResult, any, error) {
	args := []string{"review"}
	switch {
	case in.Branch != "":
		args = append(args, "--branch", in.Branch)
	case in.Range != "":
		args = append(args, "--range", in.Range)
	case len(in.Files) > 0:
		args = append(args, "--files")
		args = append(args, in.Files...)
	}
	if in.Reviewers > 0 {
		args = append(args, "--reviewers", strconv.Itoa(in.Reviewers))
	}
	return t.call(ctx, req, args)
}
