package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/csa-dev/csa/internal/csaagent/config"
	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/loop"
	"github.com/csa-dev/csa/internal/csaagent/perm"
	"github.com/csa-dev/csa/internal/csaagent/skills"
	"github.com/csa-dev/csa/internal/csaagent/store"
	"github.com/csa-dev/csa/internal/csaagent/thread"
	"github.com/csa-dev/csa/internal/csaenv"
)

// host is thread.Host over the command line's session assembly: a thread
// is a session opened as `csa-agent -p` would open it, with no renderer.
type host struct {
	io   IO
	base options // flags given to the front end's command (model, mode)
}

// NewHost is the thread.Host the protocol front ends use.
func NewHost(sio IO) thread.Host { return &host{io: sio, base: options{outputFormat: "json"}} }

func (h *host) optionsFor(o thread.Options) (*options, IO) {
	opts := h.base
	opts.print = true
	opts.outputFormat = "json" // events go to the turn's sink, not stdout
	opts.model = firstOf(o.Model, h.base.model)
	opts.permissionMode = firstOf(o.PermissionMode, h.base.permissionMode)
	opts.sessionID = o.SessionID
	opts.mcpConfig = append(append([]string(nil), h.base.mcpConfig...), o.MCPConfig...)
	sio := h.io
	if o.Cwd != "" {
		sio.Cwd = o.Cwd
	}
	return &opts, sio
}

func (h *host) Start(ctx context.Context, o thread.Options) (thread.Thread, error) {
	opts, sio := h.optionsFor(o)
	s, err := open(ctx, opts, sio)
	if err != nil {
		return nil, err
	}
	return &live{s: s}, nil
}

func (h *host) Resume(ctx context.Context, id string, o thread.Options) (thread.Thread, error) {
	if o.Cwd == "" {
		sum, err := store.Summarise(store.Dir(h.io.Getenv), id)
		if err != nil {
			return nil, err
		}
		o.Cwd = sum.Cwd
	}
	o.SessionID = ""
	opts, sio := h.optionsFor(o)
	opts.resume = id
	s, err := open(ctx, opts, sio)
	if err != nil {
		return nil, err
	}
	return &live{s: s}, nil
}

func (h *host) List(context.Context) ([]thread.Info, error) {
	sums, err := store.List(store.Dir(h.io.Getenv))
	if err != nil {
		return nil, err
	}
	out := make([]thread.Info, len(sums))
	for i, s := range sums {
		out[i] = thread.Info{ID: s.ID, Cwd: s.Cwd, Model: s.Model, Preview: s.Preview, Created: s.Created, Updated: s.Updated}
	}
	return out, nil
}

func (h *host) Models() []string {
	cfg, err := config.Load(config.Path(h.io.Getenv))
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, m := range append([]string{firstOf(h.base.model, h.io.Getenv(csaenv.AgentModel), cfg.Model), cfg.FallbackModel}, slices.Sorted(maps.Keys(cfg.Models))...) {
		if m != "" && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

func (h *host) Config() map[string]any {
	path := config.Path(h.io.Getenv)
	cfg, err := config.Load(path)
	if err != nil {
		return map[string]any{"path": path, "error": err.Error()}
	}
	// Keys never leave csa-agent: a client shows settings, not secrets.
	for name, p := range cfg.Providers {
		if p.APIKey != "" {
			p.APIKey = "(set)"
			cfg.Providers[name] = p
		}
	}
	var m map[string]any
	b, _ := json.Marshal(cfg)
	json.Unmarshal(b, &m)
	return map[string]any{"path": path, "config": m}
}

// live is an open session driven as a thread.
type live struct {
	s   *session
	run sync.Mutex // one turn at a time
}

func (l *live) ID() string    { return l.s.id }
func (l *live) Model() string { return l.s.spec }
func (l *live) Cwd() string   { return l.s.io.Cwd }
func (l *live) Close()        { l.s.close() }

func (l *live) Run(ctx context.Context, input string, sink event.Sink, approve thread.Approver) thread.Outcome {
	l.run.Lock()
	defer l.run.Unlock()
	l.s.setTurn(&turnState{sink: sink, approve: approve})
	defer l.s.setTurn(nil)
	send, allow, err := l.s.expandSkill(ctx, input)
	if err != nil { // a shell line refused or failing: nothing reaches the model
		text := err.Error()
		l.s.sink.Emit(event.Event{Kind: event.Result, Text: text, IsError: true, SessionID: l.s.id})
		return thread.Outcome{End: loop.EndError, Text: text, IsError: true}
	}
	out := l.s.turn(ctx, input, send, allow)
	o := thread.Outcome{End: out.End, Text: out.Text, Class: out.Class, Turns: out.Turns,
		IsError: out.End != loop.EndDone && out.End != loop.EndStopped}
	if out.Err != nil && o.Text == "" {
		o.Text = out.Err.Error()
	}
	return o
}

// expandSkill turns "/name args" naming a user-invocable skill or command
// into its prompt (its shell lines run) and the rules it allows, and the
// turn to its model; err is a shell line refused or failing. A front
// end's client shows its own commands: csa-agent's built-ins, which write
// to the terminal, and unknown names go to the model as written.
func (s *session) expandSkill(ctx context.Context, input string) (send string, allow []perm.Rule, err error) {
	if name, args, ok := skills.Invocation(input); ok {
		if _, builtin := findBuiltin(name); !builtin {
			if sk, ok := s.skills.Lookup(name); ok && sk.UserInvocable {
				send, err := sk.Prompt(args, s.id)
				if err == nil {
					send, err = skills.RunShell(ctx, send, commandShell{s, sk.AllowedTools})
				}
				if err != nil {
					return "", nil, fmt.Errorf("/%s: %w", name, err)
				}
				s.useSkillModel(sk)
				return send, sk.AllowedTools, nil
			}
		}
	}
	return input, nil, nil
}

// turnState is what a front end gave the turn in progress.
type turnState struct {
	sink    event.Sink
	approve thread.Approver
}

func (s *session) setTurn(t *turnState) {
	s.turnMu.Lock()
	s.current = t
	s.turnMu.Unlock()
}

func (s *session) currentTurn() *turnState {
	s.turnMu.Lock()
	defer s.turnMu.Unlock()
	return s.current
}

// toTurn passes the session's events to the turn's front end.
func (s *session) toTurn(e event.Event) {
	if t := s.currentTurn(); t != nil && t.sink != nil {
		t.sink.Emit(e)
	}
}

// ask puts a call the policy would not allow on its own to the person
// behind the front end (hooks.Asker); acceptForSession answers the same
// call again. With no front end (a headless run) nobody is asked.
func (s *session) ask(ctx context.Context, c loop.Call, reason string) (allow bool, why string, answered bool) {
	cur := s.currentTurn()
	if cur == nil || cur.approve == nil {
		return false, "", false
	}
	t, input := c.Tool, c.Input
	key := t.Name() + "\x00" + t.Subject(input)
	s.turnMu.Lock()
	granted := s.granted[key]
	s.turnMu.Unlock()
	if granted {
		return true, "allowed by the user for this session", true
	}
	req := thread.Request{ToolID: c.ID, ToolName: t.Name(), Input: input, Kind: "tool", Reason: reason}
	switch subject := t.Subject(input); {
	case t.Name() == "Bash":
		req.Kind, req.Command = "command", subject
	case editTool(t.Name()):
		req.Kind, req.Path = "file", subject
	}
	switch cur.approve(ctx, req) {
	case thread.AcceptForSession:
		s.turnMu.Lock()
		if s.granted == nil {
			s.granted = map[string]bool{}
		}
		s.granted[key] = true
		s.turnMu.Unlock()
		return true, "allowed by the user for this session", true
	case thread.Accept:
		return true, "allowed by the user", true
	}
	return false, "the user declined this call", true
}

func editTool(name string) bool {
	switch name {
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		return true
	}
	return false
}
