package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/transport"
)

// ACPSpec runs the tool's Agent Client Protocol agent instead of its CLI.
// The CLI invocation of the Spec stays the fallback while the connection
// is set up; once the prompt is sent there is no fallback.
type ACPSpec struct {
	Program  string   `json:"program"`
	Args     []string `json:"args,omitempty"`
	Prompt   string   `json:"prompt"`
	Yolo     bool     `json:"yolo"`
	ResumeID string   `json:"resume_id,omitempty"`
	// MCP are the MCP servers given to the session.
	MCP []agents.MCPServer `json:"mcp,omitempty"`
}

// EvPromptSent marks the moment the prompt goes to an ACP agent, once the
// connection is set up (the benchmark of csa's start-up measures to it).
const EvPromptSent = "prompt.sent"

// acpSpec is the ACP part of a run's spec, nil for a CLI run.
func acpSpec(req Request, resume string) *ACPSpec {
	if req.ACPProgram == "" {
		return nil
	}
	return &ACPSpec{Program: req.ACPProgram, Args: req.ACPArgs, Prompt: req.Prompt, Yolo: req.Yolo, ResumeID: resume, MCP: req.mcpFor()}
}

// fallbackError is an ACP agent that failed before it was sent the
// prompt: the run falls back to the tool's CLI, with a warning.
type fallbackError struct {
	reason string // why the agent could not be used
	stderr string // the agent's last line of stderr, when it said anything
}

func (e *fallbackError) Error() string { return e.reason + "; falling back to the CLI" }

// warning is the event that records the fallback.
func (e *fallbackError) warning() map[string]any {
	w := map[string]any{"message": e.Error(), "transport": transport.CLI}
	if e.stderr != "" {
		w["stderr"] = e.stderr
	}
	return w
}

// superviseACP runs the session's ACP agent: its set-up (setUpACP), then
// its turn (promptACP). A *fallbackError is an agent that failed during
// set-up: the caller records it and runs the CLI instead.
func (l *life) superviseACP(ctx context.Context, outLog, errLog io.Writer) (*session.State, error) {
	c, err := l.setUpACP(ctx, outLog, errLog)
	if err != nil {
		var se *startError
		if errors.As(err, &se) {
			return l.finish(nil, &ending{session.Failed, session.FailStart, se.msg}, agents.Outcome{}, nil)
		}
		return nil, err
	}
	defer c.endLine(l.s.Stdout)
	end := c.stopped
	var turn acpTurn
	if end == nil {
		turn, end = l.promptACP(ctx, c)
	}
	l.stopACP(c)
	if end == nil {
		if end = l.killedEarly(); end == nil {
			end = l.outcome(c.client, turn.res, turn.err)
		}
	}
	out := agents.Outcome{Result: turn.res.Text, ProviderSessionID: c.client.SessionID(), Usage: turn.res.Usage}
	return l.finish(nil, end, out, &streams{out: c.outP, err: c.errP})
}

// instructions is the context block csa hands an ACP agent at session/new.
func instructions(st *session.State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You run headless as a csa sub-agent (session %s, depth %d, tool %s).", st.ID, st.Depth, st.Tool)
	fmt.Fprintf(&b, " Work inside %s: file reads and writes outside it are refused.", st.Cwd)
	b.WriteString(" No human answers questions during this run.")
	return b.String()
}
