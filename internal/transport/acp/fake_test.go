package acp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// fakeAgent is the SDK's agent side, in process, with each method
// replaceable by a test.
type fakeAgent struct {
	conn *sdk.AgentSideConnection
	out  *lockedWriter // the agent's output, for raw (malformed) lines

	initialize func(sdk.InitializeRequest) (sdk.InitializeResponse, error)
	newSession func(sdk.NewSessionRequest) (sdk.NewSessionResponse, error)
	prompt     func(context.Context, sdk.PromptRequest) (sdk.PromptResponse, error)
	load       func(sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error)

	mu        sync.Mutex
	modes     []sdk.SessionModeId // set_mode calls
	cancelled int
	newReq    sdk.NewSessionRequest
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// rig connects a Client to a fake agent through in-memory pipes.
type rig struct {
	agent  *fakeAgent
	client *Client
	events *recorder
	// kill ends the agent's side of the connection (the agent dies).
	kill func()
}

type recorder struct {
	mu   sync.Mutex
	evs  []recorded
	text []string
}

type recorded struct {
	typ  string
	data any
}

func (r *recorder) emit(typ string, data any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, recorded{typ, data})
}

func (r *recorder) of(typ string) []any {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []any
	for _, e := range r.evs {
		if e.typ == typ {
			out = append(out, e.data)
		}
	}
	return out
}

func newRig(t *testing.T, cfg Config, a *fakeAgent) *rig {
	t.Helper()
	toAgentR, toAgentW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	a.out = &lockedWriter{w: toClientW}
	a.conn = sdk.NewAgentSideConnection(a, a.out, toAgentR)
	a.conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	rec := &recorder{}
	cfg.Emit = rec.emit
	cfg.Text = func(s string) {
		rec.mu.Lock()
		rec.text = append(rec.text, s)
		rec.mu.Unlock()
	}
	c := New(cfg, toAgentW, toClientR)
	kill := func() {
		toClientW.CloseWithError(errors.New("agent died"))
		toAgentR.CloseWithError(errors.New("agent died"))
	}
	t.Cleanup(kill)
	return &rig{agent: a, client: c, events: rec, kill: kill}
}

func (a *fakeAgent) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

func (a *fakeAgent) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	if a.initialize != nil {
		return a.initialize(p)
	}
	return sdk.InitializeResponse{ProtocolVersion: sdk.ProtocolVersionNumber}, nil
}

func (a *fakeAgent) Cancel(context.Context, sdk.CancelNotification) error {
	a.mu.Lock()
	a.cancelled++
	a.mu.Unlock()
	return nil
}

func (a *fakeAgent) CloseSession(context.Context, sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	return sdk.CloseSessionResponse{}, nil
}

func (a *fakeAgent) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, nil
}

func (a *fakeAgent) NewSession(_ context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	a.mu.Lock()
	a.newReq = p
	a.mu.Unlock()
	if a.newSession != nil {
		return a.newSession(p)
	}
	return sdk.NewSessionResponse{SessionId: "sess-1"}, nil
}

func (a *fakeAgent) LoadSession(_ context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	if a.load != nil {
		return a.load(p)
	}
	return sdk.LoadSessionResponse{}, nil
}

func (a *fakeAgent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	if a.prompt != nil {
		return a.prompt(ctx, p)
	}
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

func (a *fakeAgent) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, errors.New("resume not offered")
}

func (a *fakeAgent) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, nil
}

func (a *fakeAgent) SetSessionMode(_ context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	a.mu.Lock()
	a.modes = append(a.modes, p.ModeId)
	a.mu.Unlock()
	return sdk.SetSessionModeResponse{}, nil
}

// say sends one text chunk of the agent's answer.
func (a *fakeAgent) say(ctx context.Context, sid sdk.SessionId, text string) error {
	return a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sid, Update: sdk.UpdateAgentMessageText(text)})
}
