// Package acp drives an agent over the Agent Client Protocol (JSON-RPC 2.0
// over the agent's stdio): initialize, session/new (or session/load),
// session/set_mode, session/prompt, with the agent's session/update
// notifications turned into csa's normalised events. It serves the agent's
// own requests: file reads and writes confined to the working directory,
// and permission requests answered by policy, never by waiting for a human.
// It starts no process: the caller hands it the agent's stdin and stdout.
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/session"
)

// Config is one run over ACP.
type Config struct {
	// Cwd is the session's working directory; file requests are confined
	// to it and to Roots.
	Cwd   string
	Roots []string
	// Yolo lets the agent act without asking: the no-approval mode is set
	// and every permission request is allowed.
	Yolo bool
	// AllowKinds are the tool kinds (edit, execute, read, ...) allowed
	// when not in yolo; every other request is denied.
	AllowKinds []string
	// Instructions is a context block csa hands the agent at session/new.
	Instructions string
	// ResumeID continues that ACP session (session/load or session/resume).
	ResumeID string
	// MCP are the stdio MCP servers the session is given (the mcpServers
	// of session/new, session/load and session/resume).
	MCP []agents.MCPServer
	// Emit records one normalised event; Text shows assistant text live.
	// Both may be called from several goroutines, never at once.
	Emit func(typ string, data any)
	Text func(string)
	// Log receives the connection's diagnostics; nil discards them.
	Log io.Writer
}

// Event types of the ACP transport beyond agents' normalised ones.
const (
	EvToolUpdate = "tool_call_update"
	EvPlan       = "plan"
	EvContext    = "context_usage"
	EvPermission = "permission"
	EvFS         = "fs"
)

// Result is what a finished prompt turn produced.
type Result struct {
	StopReason string
	Text       string
	Usage      *session.Usage
	// Denied are the permission requests csa refused during the turn.
	Denied []string
}

// SetupError is a failure before the prompt was sent: the caller may still
// run the agent another way.
type SetupError struct {
	Step string
	Err  error
}

func (e *SetupError) Error() string { return fmt.Sprintf("acp %s: %v", e.Step, e.Err) }
func (e *SetupError) Unwrap() error { return e.Err }

// Client is one connection to an agent.
type Client struct {
	cfg   Config
	conn  *sdk.ClientSideConnection
	fs    *confinement
	agent sdk.InitializeResponse

	mu        sync.Mutex      // emit, text, result
	updates   context.Context // the context updates are handled in
	sessionID string
	denied    []string
	text      strings.Builder
	emitting  bool
}

// New connects to an agent that reads w and writes r.
func New(cfg Config, w io.Writer, r io.Reader) *Client {
	c := &Client{cfg: cfg, fs: newConfinement(cfg.Cwd, cfg.Roots)}
	c.conn = sdk.NewClientSideConnection(handler{c}, w, r)
	out := cfg.Log
	if out == nil {
		out = io.Discard
	}
	c.conn.SetLogger(slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelWarn})))
	return c
}

// Done is closed when the agent's output ends.
func (c *Client) Done() <-chan struct{} { return c.conn.Done() }

// SessionID is the agent's session, once set up.
func (c *Client) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

// Setup initializes the connection and creates (or loads) the session, then
// switches it to the no-approval mode in yolo. Its errors are SetupErrors.
func (c *Client) Setup(ctx context.Context) error {
	init, err := c.conn.Initialize(ctx, sdk.InitializeRequest{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{
			Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true},
		},
		ClientInfo: &sdk.Implementation{Name: "csa", Version: "1"},
	})
	if err != nil {
		return &SetupError{"initialize", err}
	}
	c.agent = init
	modes, err := c.openSession(ctx)
	if err != nil {
		return err
	}
	if c.cfg.Yolo && modes != nil {
		if mode := yoloMode(modes); mode != "" && mode != modes.CurrentModeId {
			_, err := c.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: sdk.SessionId(c.SessionID()), ModeId: mode})
			if err != nil {
				return &SetupError{"session/set_mode", err}
			}
			c.emit("mode", map[string]any{"mode": string(mode)})
		}
	}
	return nil
}

// mcpServers are the configured servers as ACP's stdio servers.
func (c *Client) mcpServers() []sdk.McpServer {
	out := make([]sdk.McpServer, 0, len(c.cfg.MCP))
	for _, s := range c.cfg.MCP {
		args := s.Args
		if args == nil {
			args = []string{}
		}
		out = append(out, sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: s.Name, Command: s.Command, Args: args, Env: []sdk.EnvVariable{}}})
	}
	return out
}

// openSession creates the session, or continues ResumeID when the agent
// can load or resume one.
func (c *Client) openSession(ctx context.Context) (*sdk.SessionModeState, error) {
	meta := c.meta()
	if id := c.cfg.ResumeID; id != "" {
		caps := c.agent.AgentCapabilities
		switch {
		case caps.SessionCapabilities.Resume != nil:
			res, err := c.conn.ResumeSession(ctx, sdk.ResumeSessionRequest{Meta: meta, SessionId: sdk.SessionId(id), Cwd: c.cfg.Cwd, McpServers: c.mcpServers()})
			if err != nil {
				return nil, &SetupError{"session/resume", err}
			}
			c.setSession(id)
			return res.Modes, nil
		case caps.LoadSession:
			// The replayed history arrives as updates; it is not this
			// turn's output.
			c.mu.Lock()
			c.emitting = false
			c.mu.Unlock()
			res, err := c.conn.LoadSession(ctx, sdk.LoadSessionRequest{Meta: meta, SessionId: sdk.SessionId(id), Cwd: c.cfg.Cwd, McpServers: c.mcpServers()})
			if err != nil {
				return nil, &SetupError{"session/load", err}
			}
			c.setSession(id)
			return res.Modes, nil
		}
		return nil, &SetupError{"session/load", errors.New("the agent can neither load nor resume a session")}
	}
	res, err := c.conn.NewSession(ctx, sdk.NewSessionRequest{Meta: meta, Cwd: c.cfg.Cwd, McpServers: c.mcpServers()})
	if err != nil {
		return nil, &SetupError{"session/new", err}
	}
	if res.SessionId == "" {
		return nil, &SetupError{"session/new", errors.New("the agent returned no session id")}
	}
	c.setSession(string(res.SessionId))
	return res.Modes, nil
}

// meta carries the instructions block: claude-code-acp appends
// systemPrompt.append to its system prompt; other agents ignore it.
func (c *Client) meta() map[string]any {
	if c.cfg.Instructions == "" {
		return nil
	}
	return map[string]any{
		"systemPrompt": map[string]any{"append": c.cfg.Instructions},
		"csa":          map[string]any{"instructions": c.cfg.Instructions},
	}
}

func (c *Client) setSession(id string) {
	c.mu.Lock()
	c.sessionID = id
	c.mu.Unlock()
	c.emit(agents.EvSession, agents.SessionEvent{ID: id})
}

// yoloModes are the agents' no-approval modes, best first: claude-code-acp's
// bypassPermissions; codex-acp's full-access (its "auto" sandboxes commands
// with bubblewrap, which many machines lack).
var yoloModes = []sdk.SessionModeId{"bypassPermissions", "full-access"}

func yoloMode(m *sdk.SessionModeState) sdk.SessionModeId {
	for _, want := range yoloModes {
		for _, have := range m.AvailableModes {
			if have.Id == want {
				return want
			}
		}
	}
	return ""
}

// Prompt sends the prompt and waits for the turn to end. When ctx ends
// first it sends session/cancel and returns ctx's error.
func (c *Client) Prompt(ctx context.Context, prompt string) (Result, error) {
	c.mu.Lock()
	c.emitting = true
	c.mu.Unlock()
	res, err := c.conn.Prompt(ctx, sdk.PromptRequest{
		SessionId: sdk.SessionId(c.SessionID()),
		Prompt:    []sdk.ContentBlock{sdk.TextBlock(prompt)},
	})
	if err != nil {
		c.drained()
	}
	c.mu.Lock()
	out := Result{StopReason: string(res.StopReason), Text: strings.TrimRight(c.text.String(), " \t\r\n"), Denied: c.denied}
	c.mu.Unlock()
	if u := res.Usage; u != nil {
		out.Usage = &session.Usage{InputTokens: int64(u.InputTokens), OutputTokens: int64(u.OutputTokens)}
		if u.CachedReadTokens != nil {
			out.Usage.CachedTokens = int64(*u.CachedReadTokens)
		}
		c.emit(agents.EvUsage, *out.Usage)
	}
	if err != nil {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		return out, fmt.Errorf("acp session/prompt: %w", err)
	}
	return out, nil
}

// drained waits, briefly, until the updates an agent sent before it went
// away are handled: the connection ends their context once they are.
func (c *Client) drained() {
	select {
	case <-c.conn.Done():
	default:
		return
	}
	c.mu.Lock()
	ctx := c.updates
	c.mu.Unlock()
	if ctx == nil {
		// No update handled yet: one may still be on its way.
		time.Sleep(50 * time.Millisecond)
		c.mu.Lock()
		ctx = c.updates
		c.mu.Unlock()
		if ctx == nil {
			return
		}
	}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// Cancel asks the agent to stop the current turn (session/cancel).
func (c *Client) Cancel(ctx context.Context) error {
	id := c.SessionID()
	if id == "" {
		return nil
	}
	return c.conn.Cancel(ctx, sdk.CancelNotification{SessionId: sdk.SessionId(id)})
}

func (c *Client) emit(typ string, data any) {
	if c.cfg.Emit == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cfg.Emit(typ, data)
}

// appendText keeps the answer's tail and shows it live.
func (c *Client) appendText(t string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.emitting {
		return
	}
	if c.text.Len()+len(t) > 2*agents.MaxResult {
		keep := c.text.String() + t
		keep = strings.ToValidUTF8(keep[len(keep)-agents.MaxResult:], "")
		c.text.Reset()
		c.text.WriteString(keep)
	} else {
		c.text.WriteString(t)
	}
	if c.cfg.Emit != nil {
		c.cfg.Emit(agents.EvText, agents.Text{Text: t, Delta: true})
	}
	if c.cfg.Text != nil {
		c.cfg.Text(t)
	}
}
