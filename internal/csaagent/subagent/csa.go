package subagent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/tool"
	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/events"
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/lock"
	"github.com/csa-dev/csa/internal/session"
)

// SessionTool is the tool name of a subagent's csa session record (the
// TOOL column of `csa ps`).
const SessionTool = "subagent"

// csaParent is the csa session subagents are recorded under: the csa run
// of csa-agent itself, or for a nested subagent its parent subagent's.
type csaParent struct {
	store *session.Store
	state *session.State
}

// csaFromEnv finds the csa session csa-agent runs in, nil when it does not
// run under csa.
func csaFromEnv(getenv func(string) string) (*csaParent, error) {
	id, dir := getenv(csaenv.SessionID), getenv(csaenv.SessionDir)
	if id == "" || dir == "" {
		return nil, nil
	}
	if filepath.Base(dir) != id {
		return nil, fmt.Errorf("%s=%s is not the directory of session %s", csaenv.SessionDir, dir, id)
	}
	store, err := session.Open(filepath.Dir(dir))
	if err != nil {
		return nil, err
	}
	st, err := store.Load(id)
	if err != nil {
		return nil, err
	}
	return &csaParent{store: store, state: st}, nil
}

// record is a subagent's csa session, held (its supervisor lock taken) by
// this process from begin to end, as csa's own reviews are: `csa ps`
// lists it under its parent, `csa logs` reads its events.jsonl, and
// `csa kill` leaves a kill request that watch turns into a cancellation.
// Its PGID stays 0 so that csa's signals never reach this process, which
// is shared with the parent agent.
type record struct {
	id    string
	store *session.Store
	state *session.State
	lock  *lock.Holder
	ev    *events.Writer
	now   func() time.Time

	mu     sync.Mutex
	turns  int
	usage  session.Usage
	closed bool
}

func (p *csaParent) begin(def Definition, req tool.SubagentRequest, model string, cwd string, now func() time.Time) (*record, error) {
	t := now().UTC()
	ps := p.state
	st := &session.State{
		ID: session.NewID(t), Tool: SessionTool, Model: model, Status: session.Running,
		ProjectRoot: ps.ProjectRoot, Cwd: cwd, CreatedAt: t, StartedAt: t,
		Depth: ps.Depth + 1, ParentID: ps.ID, ParentTool: ps.Tool,
		Args: []string{def.Name, req.Description}, PromptBytes: len(req.Prompt), PromptVia: "task",
		SupervisorPID: os.Getpid(), PID: os.Getpid(),
	}
	if exe, err := os.Executable(); err == nil {
		st.Program = exe
	}
	h, err := p.store.Create(st.ID)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*record, error) {
		h.Release()
		p.store.Remove(st.ID)
		return nil, fmt.Errorf("record subagent session: %w", err)
	}
	if err := errors.Join(
		fsutil.WriteFileReplace(p.store.Path(st.ID, session.PromptFile), []byte(req.Prompt)),
		p.store.Save(st),
	); err != nil {
		return fail(err)
	}
	ev, err := events.OpenWriter(p.store.Path(st.ID, session.EventsFile), now)
	if err != nil {
		return fail(err)
	}
	ev.Emit(events.SessionCreated, map[string]any{"tool": SessionTool, "depth": st.Depth, "parent_id": st.ParentID,
		"subagent_type": def.Name, "description": req.Description})
	return &record{id: st.ID, store: p.store, state: st, lock: h, ev: ev, now: now}, nil
}

// parent is this record as the parent of nested subagents.
func (r *record) parent() *csaParent { return &csaParent{store: r.store, state: r.state} }

// Emit writes the subagent's own events (not those of its nested
// subagents, which have their own records) as csa events.
func (r *record) Emit(e event.Event) {
	if e.Agent != r.id {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	switch e.Kind {
	case event.Assistant:
		if e.Message == nil {
			return
		}
		r.turns++
		for _, b := range e.Message.Content {
			switch b.Type {
			case "text":
				if b.Text != "" {
					r.ev.Emit(agents.EvText, agents.Text{Text: b.Text})
				}
			case "thinking":
				if b.Text != "" {
					r.ev.Emit(agents.EvThought, agents.Text{Text: b.Text})
				}
			case "tool_use":
				r.ev.Emit(agents.EvToolCall, agents.ToolCall{ID: b.ID, Name: b.Name, Input: b.Input})
			}
		}
	case event.ToolFinished:
		out := e.Text
		if len(out) > 4096 {
			out = out[:4096] + "…"
		}
		r.ev.Emit(agents.EvToolResult, agents.ToolResult{ID: e.ToolID, Name: e.ToolName, Output: out, IsError: e.IsError})
	case event.Usage:
		if e.Usage != nil {
			u := session.Usage{InputTokens: e.Usage.InputTokens, OutputTokens: e.Usage.OutputTokens,
				CachedTokens: e.Usage.CacheReadTokens, CacheWriteTokens: e.Usage.CacheWriteTokens}
			r.usage.InputTokens += u.InputTokens
			r.usage.OutputTokens += u.OutputTokens
			r.usage.CachedTokens += u.CachedTokens
			r.usage.CacheWriteTokens += u.CacheWriteTokens
			r.ev.Emit(agents.EvUsage, u)
		}
	case event.Retry:
		r.ev.Emit(agents.EvRetry, agents.Retry{Attempt: e.Attempt, Max: e.MaxRetries, Status: e.Status,
			DelayMS: e.Delay.Milliseconds(), Message: e.Text})
	case event.CompactStart, event.CompactEnd:
		r.ev.Emit(string(e.Kind), map[string]any{"pre_tokens": e.PreTokens, "post_tokens": e.PostTokens})
	}
}

// killRequested reports a `csa kill` of this subagent.
func (r *record) killRequested() bool {
	_, err := os.Stat(r.store.Path(r.id, session.KillRequest))
	return err == nil
}

// watch cancels the subagent (cause errKilled) when `csa kill` asks, until
// done is closed.
func (r *record) watch(every time.Duration, cancel context.CancelCauseFunc, done <-chan struct{}) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if r.killRequested() {
			cancel(errKilled)
			return
		}
		select {
		case <-done:
			return
		case <-tick.C:
		}
	}
}

// end records how the subagent ended and releases the session. An end
// that `csa kill` already recorded stays.
func (r *record) end(status session.Status, result string, fail *session.Failure) {
	r.mu.Lock()
	r.closed = true
	turns, usage := r.turns, r.usage
	r.mu.Unlock()
	defer r.lock.Release()
	defer r.ev.Close()
	code := 0
	if status != session.Completed {
		code = 1
	}
	r.ev.Emit(events.SessionEnded, map[string]any{"state": status, "exit_code": code})
	t := r.now().UTC()
	st, err := r.store.Update(context.Background(), r.id, func(cur *session.State) error {
		if cur.Status.Ended() {
			return session.ErrNoChange
		}
		cur.EndedAt, cur.ExitCode, cur.Result, cur.Failure, cur.Turns = t, &code, result, fail, turns
		if usage != (session.Usage{}) {
			cur.Usage = &usage
		}
		if fail != nil {
			cur.Reason = fail.Message
		}
		return cur.Move(status)
	})
	if err == nil {
		r.state = st
	}
}
