package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/events"
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/lock"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
)

// Session kinds: the tool a review's or a debate's own session records.
// Such a session runs no program; its children are the sub-agents.
const (
	KindReview = "review"
	KindDebate = "debate"
)

// Session is the csa session of a review or a debate, held (its supervisor
// lock taken) by this process from Begin to End.
type Session struct {
	Store *session.Store
	State *session.State
	lock  *lock.Holder
	ev    *events.Writer
	now   func() time.Time
}

// Meta describes a session to begin.
type Meta struct {
	Kind        string
	Parent      *runner.Parent
	ProjectRoot string
	Cwd         string
	Program     string   // csa itself
	Args        []string // csa's arguments, for the record
	Prompt      string   // kept as prompt.txt
}

// Begin creates the session, running: the supervisor lock is taken before
// the first state is written, so it is never mistaken for a crashed one.
func Begin(store *session.Store, m Meta, now func() time.Time) (*Session, error) {
	t := now().UTC()
	st, h, err := runner.NewSession(store, "", m.Kind, m.Parent, m.ProjectRoot, t)
	if err != nil {
		return nil, err
	}
	st.Status, st.Cwd, st.StartedAt = session.Running, m.Cwd, t
	st.Program, st.Args, st.PromptBytes = m.Program, m.Args, len(m.Prompt)
	st.SupervisorPID, st.PID, st.Turns = os.Getpid(), os.Getpid(), 1
	err = errors.Join(
		fsutil.WriteFileReplace(store.Path(st.ID, session.PromptFile), []byte(m.Prompt)),
		store.Save(st),
	)
	if err != nil {
		h.Release()
		store.Remove(st.ID)
		return nil, fmt.Errorf("create %s session: %w", m.Kind, err)
	}
	ev, err := events.OpenWriter(store.Path(st.ID, session.EventsFile), now)
	if err != nil {
		h.Release()
		store.Remove(st.ID)
		return nil, err
	}
	s := &Session{Store: store, State: st, lock: h, ev: ev, now: now}
	ev.Emit(events.SessionCreated, map[string]any{"tool": m.Kind, "depth": st.Depth, "parent_id": st.ParentID})
	return s, nil
}

// ID is the session's id.
func (s *Session) ID() string { return s.State.ID }

// Dir is the session's directory.
func (s *Session) Dir() string { return s.Store.Dir(s.State.ID) }

// Say records a line of the session's text (what `csa logs` shows).
func (s *Session) Say(text string) {
	s.ev.Emit(agents.EvText, agents.Text{Text: text})
}

// Note records a structured event.
func (s *Session) Note(typ string, data any) { s.ev.Emit(typ, data) }

// KillRequested reports a `csa kill` of this session.
func (s *Session) KillRequested() bool {
	_, err := os.Stat(s.Store.Path(s.State.ID, session.KillRequest))
	return err == nil
}

// SaveJSON writes v as name (review.json, debate.json) in the session
// directory, atomically.
func (s *Session) SaveJSON(name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(s.Store.Path(s.State.ID, name), append(b, '\n'))
}

// Ending is how a review or a debate ended.
type Ending struct {
	Status   session.Status
	ExitCode int
	Result   string
	Failure  *session.Failure
}

// End records the end and releases the session. A session that `csa kill`
// already recorded as ended keeps that record.
func (s *Session) End(e Ending) (*session.State, error) {
	defer s.lock.Release()
	defer s.ev.Close()
	t := s.now().UTC()
	s.ev.Emit(events.SessionEnded, map[string]any{"state": e.Status, "exit_code": e.ExitCode})
	code := e.ExitCode
	st, err := s.Store.Update(context.Background(), s.State.ID, func(cur *session.State) error {
		if cur.Status.Ended() {
			return session.ErrNoChange
		}
		cur.EndedAt, cur.ExitCode, cur.Result, cur.Failure = t, &code, e.Result, e.Failure
		if e.Failure != nil {
			cur.Reason = e.Failure.Message
		}
		return cur.Move(e.Status)
	})
	if err == nil {
		s.State = st
	}
	return st, err
}
