// Package acpagent is csa-agent as an Agent Client Protocol agent: an
// editor (or csa's own ACP transport) speaks JSON-RPC on csa-agent's
// stdio, and each ACP session is a thread.Thread. Sessions are set up
// here, a turn runs in prompt.go, and the loop's events become
// session/update notifications in updates.go.
//
// File tools read and write the disk directly even when the client offers
// fs/read_text_file and fs/write_text_file: csa-agent's tools, permission
// rules and confinement to the working directory are the same under every
// front end, and an editor's unsaved buffers are not what a headless agent
// edits.
package acpagent

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/thread"
)

// Config is what the agent serves with.
type Config struct {
	Host    thread.Host
	Version string
	// History returns a stored conversation, replayed by session/load.
	History func(id string) ([]llm.Message, error)
	// Mode and SetMode read and change an open thread's permission mode.
	Mode    func(thread.Thread) string
	SetMode func(thread.Thread, string) error
	// Warn reports what the client asked for and csa-agent ignores;
	// Log gets the connection's own warnings. Both are stderr: stdout is
	// the protocol's.
	Warn func(string)
	Log  io.Writer
}

// Modes are csa-agent's permission modes, advertised in session/new.
var Modes = []acp.SessionMode{
	{Id: "default", Name: "Default", Description: acp.Ptr("asks before edits and commands no rule allows")},
	{Id: "acceptEdits", Name: "Accept edits", Description: acp.Ptr("edits in the working directory run without asking")},
	{Id: "plan", Name: "Plan", Description: acp.Ptr("read-only exploration; the plan is approved before anything changes")},
	{Id: "bypassPermissions", Name: "Bypass permissions", Description: acp.Ptr("every tool call runs without asking")},
}

// Agent implements acp.Agent over a thread.Host.
type Agent struct {
	cfg   Config
	conn  *acp.AgentSideConnection
	ready chan struct{} // closed once conn is set: requests may come first

	mu       sync.Mutex
	sessions map[string]*session
}

// session is an open ACP session: its thread and its turn in progress.
type session struct {
	th     thread.Thread
	mu     sync.Mutex
	cancel context.CancelFunc // the running prompt's; nil when idle
}

var (
	_ acp.Agent       = (*Agent)(nil)
	_ acp.AgentLoader = (*Agent)(nil)
)

// Serve speaks ACP on r and w until the client goes away or ctx ends,
// then closes the sessions' threads.
func Serve(ctx context.Context, cfg Config, r io.Reader, w io.Writer) {
	a := &Agent{cfg: cfg, sessions: map[string]*session{}, ready: make(chan struct{})}
	a.conn = acp.NewAgentSideConnection(a, w, r)
	close(a.ready)
	if cfg.Log != nil {
		a.conn.SetLogger(slog.New(slog.NewTextHandler(cfg.Log, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	select {
	case <-a.conn.Done():
	case <-ctx.Done():
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, s := range a.sessions {
		s.stop()
		s.th.Close()
		delete(a.sessions, id)
	}
}

func (a *Agent) Initialize(_ context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession:        true,
			McpCapabilities:    acp.McpCapabilities{Http: true, Sse: true},
			PromptCapabilities: acp.PromptCapabilities{EmbeddedContext: true},
			SessionCapabilities: acp.SessionCapabilities{
				List:  &acp.SessionListCapabilities{},
				Close: &acp.SessionCloseCapabilities{},
			},
		},
		AgentInfo:   &acp.Implementation{Name: "csa-agent", Version: a.cfg.Version},
		AuthMethods: []acp.AuthMethod{},
	}, nil
}

// Authenticate has nothing to do: provider keys come from the environment
// or csa-agent's config, and initialize offers no method.
func (a *Agent) Authenticate(_ context.Context, p acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf(
		"csa-agent has no authentication method %q: it offers none; provider keys come from the environment or its config", p.MethodId)})
}

func (a *Agent) NewSession(ctx context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	if err := absolute(p.Cwd); err != nil {
		return acp.NewSessionResponse{}, err
	}
	th, err := a.cfg.Host.Start(ctx, thread.Options{Cwd: p.Cwd, MCPConfig: a.mcpConfig(p.McpServers)})
	if err != nil {
		return acp.NewSessionResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	a.add(th)
	return acp.NewSessionResponse{SessionId: acp.SessionId(th.ID()), Modes: a.modes(th), Models: a.models(th)}, nil
}

// LoadSession reopens a stored conversation and replays it as
// session/update notifications before answering, as the protocol asks.
func (a *Agent) LoadSession(ctx context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	th, err := a.reopen(ctx, string(p.SessionId), p.Cwd, p.McpServers)
	if err != nil {
		return acp.LoadSessionResponse{}, err
	}
	history, err := a.cfg.History(th.ID())
	if err != nil {
		return acp.LoadSessionResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	if err := a.replay(ctx, th, history); err != nil {
		return acp.LoadSessionResponse{}, err
	}
	return acp.LoadSessionResponse{Modes: a.modes(th), Models: a.models(th)}, nil
}

// ResumeSession is session/load without the replay. It is not advertised
// (csa's own client would take it over session/load), but it works.
func (a *Agent) ResumeSession(ctx context.Context, p acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	th, err := a.reopen(ctx, string(p.SessionId), p.Cwd, p.McpServers)
	if err != nil {
		return acp.ResumeSessionResponse{}, err
	}
	return acp.ResumeSessionResponse{Modes: a.modes(th), Models: a.models(th)}, nil
}

func (a *Agent) reopen(ctx context.Context, id, cwd string, mcp []acp.McpServer) (thread.Thread, error) {
	if err := absolute(cwd); err != nil {
		return nil, err
	}
	if s := a.session(id); s != nil {
		if s.busy() {
			return nil, acp.NewInvalidRequest(map[string]any{"error": "session " + id + " is running a prompt"})
		}
		a.drop(id)
	}
	th, err := a.cfg.Host.Resume(ctx, id, thread.Options{Cwd: cwd, MCPConfig: a.mcpConfig(mcp)})
	if err != nil {
		return nil, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("session %s: %v", id, err)})
	}
	a.add(th)
	return th, nil
}

func (a *Agent) ListSessions(ctx context.Context, p acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	infos, err := a.cfg.Host.List(ctx)
	if err != nil {
		return acp.ListSessionsResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	out := acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	for _, in := range infos {
		if p.Cwd != nil && *p.Cwd != "" && filepath.Clean(*p.Cwd) != filepath.Clean(in.Cwd) {
			continue
		}
		out.Sessions = append(out.Sessions, acp.SessionInfo{SessionId: acp.SessionId(in.ID), Cwd: in.Cwd,
			Title: acp.Ptr(in.Preview), UpdatedAt: acp.Ptr(in.Updated.UTC().Format("2006-01-02T15:04:05Z"))})
	}
	return out, nil
}

func (a *Agent) CloseSession(_ context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	if a.session(string(p.SessionId)) == nil {
		return acp.CloseSessionResponse{}, unknown(p.SessionId)
	}
	a.drop(string(p.SessionId))
	return acp.CloseSessionResponse{}, nil
}

func (a *Agent) SetSessionMode(_ context.Context, p acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	s := a.session(string(p.SessionId))
	if s == nil {
		return acp.SetSessionModeResponse{}, unknown(p.SessionId)
	}
	if !knownMode(p.ModeId) {
		return acp.SetSessionModeResponse{}, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf(
			"mode %q: want default, acceptEdits, plan or bypassPermissions", p.ModeId)})
	}
	if err := a.cfg.SetMode(s.th, string(p.ModeId)); err != nil {
		return acp.SetSessionModeResponse{}, acp.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	return acp.SetSessionModeResponse{}, nil
}

// UnstableSetSessionModel reopens the conversation on another model: a
// thread's model is chosen when it opens.
func (a *Agent) UnstableSetSessionModel(ctx context.Context, p acp.UnstableSetSessionModelRequest) (acp.UnstableSetSessionModelResponse, error) {
	id := string(p.SessionId)
	s := a.session(id)
	switch {
	case s == nil:
		return acp.UnstableSetSessionModelResponse{}, unknown(p.SessionId)
	case s.busy():
		return acp.UnstableSetSessionModelResponse{}, acp.NewInvalidRequest(map[string]any{"error": "session " + id + " is running a prompt"})
	case p.ModelId == "":
		return acp.UnstableSetSessionModelResponse{}, acp.NewInvalidParams(map[string]any{"error": "modelId is empty"})
	}
	mode := a.cfg.Mode(s.th)
	th, err := a.cfg.Host.Resume(ctx, id, thread.Options{Cwd: s.th.Cwd(), Model: string(p.ModelId), PermissionMode: mode})
	if err != nil {
		return acp.UnstableSetSessionModelResponse{}, acp.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	a.drop(id)
	a.add(th)
	return acp.UnstableSetSessionModelResponse{}, nil
}

func (a *Agent) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetConfigOption)
}

// client is the connection to the client, for notifications and requests.
func (a *Agent) client() *acp.AgentSideConnection {
	<-a.ready
	return a.conn
}

func (a *Agent) modes(th thread.Thread) *acp.SessionModeState {
	return &acp.SessionModeState{AvailableModes: Modes, CurrentModeId: acp.SessionModeId(a.cfg.Mode(th))}
}

func (a *Agent) models(th thread.Thread) *acp.SessionModelState {
	st := &acp.SessionModelState{CurrentModelId: acp.ModelId(th.Model()), AvailableModels: []acp.ModelInfo{}}
	seen := false
	for _, m := range a.cfg.Host.Models() {
		st.AvailableModels = append(st.AvailableModels, acp.ModelInfo{ModelId: acp.ModelId(m), Name: m})
		seen = seen || m == th.Model()
	}
	if !seen {
		st.AvailableModels = append([]acp.ModelInfo{{ModelId: acp.ModelId(th.Model()), Name: th.Model()}}, st.AvailableModels...)
	}
	return st
}

func (a *Agent) add(th thread.Thread) {
	a.mu.Lock()
	a.sessions[th.ID()] = &session{th: th}
	a.mu.Unlock()
}

func (a *Agent) session(id string) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

// drop cancels a session's turn and closes its thread.
func (a *Agent) drop(id string) {
	a.mu.Lock()
	s := a.sessions[id]
	delete(a.sessions, id)
	a.mu.Unlock()
	if s != nil {
		s.stop()
		s.th.Close()
	}
}

func (s *session) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancel != nil
}

func (s *session) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

func knownMode(id acp.SessionModeId) bool {
	for _, m := range Modes {
		if m.Id == id {
			return true
		}
	}
	return false
}

func absolute(cwd string) error {
	if !filepath.IsAbs(cwd) {
		return acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd %q is not an absolute path", cwd)})
	}
	return nil
}

func unknown(id acp.SessionId) error {
	return acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no open session %q: create it with session/new or session/load", id)})
}
