package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/render"
)

// The session's side of the loop: recording, rendering, permissions,
// retries and hooks.

func (s *session) record(m llm.Message) {
	if err := s.conv.Message(m); err != nil {
		fmt.Fprintln(s.io.Stderr, "csa-agent: record the conversation:", err)
	}
	s.transcript.Message("", m)
}

func (s *session) renderer() event.Sink {
	switch s.o.outputFormat {
	case "stream-json":
		r := render.NewStreamJSON(s.io.Stdout, "")
		r.SessionID = s.id
		r.Partial = s.o.partial
		return event.Func(func(e event.Event) { r.SessionID = s.id; r.Emit(e) })
	case "json":
		return event.Func(func(event.Event) {})
	}
	return &render.Text{Out: s.io.Stdout, Info: s.io.Stderr, Stream: !s.o.print, Verbose: s.o.verbose}
}

func (s *session) keepResult(e event.Event) {
	if e.Kind == event.Result && e.Agent == "" {
		s.result = &e
	}
}

func (s *session) onRetry(r llm.RetryInfo) {
	msg := ""
	if r.Err != nil {
		msg = r.Err.Error()
	}
	s.sink.Emit(event.Event{Kind: event.Retry, Time: time.Now(), Attempt: r.Attempt, MaxRetries: r.MaxRetries,
		Status: r.Status, Delay: r.Delay, Text: msg, Model: r.Model})
}

// preCompact runs the PreCompact hooks.
func (s *session) preCompact(ctx context.Context, trigger, instructions string) {
	s.hooks.PreCompact(ctx, trigger, instructions)
}
