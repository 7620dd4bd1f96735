package loop

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/llm"
)

// Why a run ended.
const (
	EndDone        = "done"        // the model answered without calling tools
	EndMaxTurns    = "max_turns"   // Config.MaxTurns requests were made
	EndBudget      = "budget"      // Config.TokenBudget was spent
	EndInterrupted = "interrupted" // the context was cancelled
	EndError       = "error"       // the model call failed (Err) or a tool broke
	EndStopped     = "stopped"     // a tool ended the run (a plan to approve)
)

// Outcome is how a run ended.
type Outcome struct {
	End   string
	Text  string // the final answer (or the plan, or the partial text)
	Turns int
	Usage llm.Usage // of this run's responses
	Err   error
	// Class is the failure class when End is error or interrupted.
	Class    string
	Duration time.Duration
}

var now = time.Now

// Run adds input to the conversation and runs the loop until the model
// stops calling tools. The conversation stays well formed whatever
// happens: every tool call gets its result, an interrupted answer keeps
// the text that arrived.
func (a *Agent) Run(ctx context.Context, input llm.Message) Outcome {
	start := now()
	a.append(input)
	out := a.loop(ctx)
	out.Duration = now().Sub(start)
	res := event.Event{Kind: event.Result, Text: out.Text, Turns: out.Turns, Usage: &out.Usage,
		Duration: out.Duration, Class: out.Class, IsError: out.End != EndDone && out.End != EndStopped}
	if out.Err != nil && out.Text == "" {
		res.Text = out.Err.Error()
	}
	if ae := new(llm.APIError); errors.As(out.Err, &ae) {
		res.Status = ae.Status
	}
	res.Mode = out.End
	a.emit(res)
	return out
}

func (a *Agent) loop(ctx context.Context) Outcome {
	var out Outcome
	stopActive := false // a stop hook has kept this run going
	for {
		switch {
		case ctx.Err() != nil:
			return interrupted(out)
		case a.cfg.MaxTurns > 0 && out.Turns >= a.cfg.MaxTurns:
			out.End, out.Err = EndMaxTurns, fmt.Errorf("reached the limit of %d turns", a.cfg.MaxTurns)
			return out
		case a.cfg.TokenBudget > 0 && out.Usage.InputTokens+out.Usage.OutputTokens >= a.cfg.TokenBudget:
			out.End, out.Err = EndBudget, fmt.Errorf("spent the budget of %d tokens", a.cfg.TokenBudget)
			return out
		}
		if err := a.compact(ctx); err != nil {
			if ctx.Err() != nil {
				return interrupted(out)
			}
			return failed(out, err)
		}
		out.Turns++
		resp, err := a.request(ctx)
		if resp != nil {
			out.Usage.Add(resp.Usage)
		}
		if err != nil {
			if ctx.Err() != nil {
				if resp != nil {
					out.Text = resp.Message.Text()
				}
				return interrupted(out)
			}
			return failed(out, err)
		}
		uses := resp.Message.ToolUses()
		if len(uses) == 0 {
			if a.cfg.Await != nil {
				if m, ok := a.cfg.Await(ctx); ok {
					m.Role = llm.User
					a.append(m)
					a.emit(event.Event{Kind: event.UserMessage, Message: &m})
					continue
				}
				if ctx.Err() != nil {
					out.Text = resp.Message.Text()
					return interrupted(out)
				}
			}
			if again := a.beforeStop(ctx, &stopActive, resp.Message.Text()); again != "" {
				m := llm.UserText(again)
				a.append(m)
				a.emit(event.Event{Kind: event.UserMessage, Message: &m})
				continue
			}
			out.End, out.Text = EndDone, resp.Message.Text()
			return out
		}
		results := a.runTools(ctx, uses)
		a.append(llm.Message{Role: llm.User, Content: results})
		a.emit(event.Event{Kind: event.ToolResults, Message: &llm.Message{Role: llm.User, Content: results}})
		if a.fatal != nil {
			return failed(out, a.fatal)
		}
		if ctx.Err() != nil {
			return interrupted(out)
		}
		a.mu.Lock()
		stop := a.stopWith
		a.stopWith = nil
		a.mu.Unlock()
		if stop != nil {
			out.End, out.Text = EndStopped, *stop
			return out
		}
	}
}

// request sends the conversation and appends the answer. On an interrupt
// the text received so far is kept (tool calls that never completed are
// not: they would have no results).
func (a *Agent) request(ctx context.Context) (*llm.Response, error) {
	cfg := a.Config()
	a.emit(event.Event{Kind: event.TurnStart, Model: cfg.Model})
	req := &llm.Request{Model: cfg.Model, System: cfg.System, Messages: a.Messages(),
		Tools: a.specs(), MaxTokens: cfg.MaxTokens, Effort: cfg.Effort}
	var partial string
	resp, err := cfg.Provider.Stream(ctx, req, func(d llm.Delta) {
		switch d.Kind {
		case llm.DeltaText:
			partial += d.Text
			a.emit(event.Event{Kind: event.TextDelta, Text: d.Text})
		case llm.DeltaThinking:
			a.emit(event.Event{Kind: event.ThinkingDelta, Text: d.Text})
		}
	})
	if err != nil {
		if ctx.Err() != nil && partial != "" {
			m := llm.Message{Role: llm.Assistant, Content: []llm.Block{{Type: llm.BlockText, Text: partial}}}
			a.append(m)
			a.emit(event.Event{Kind: event.Assistant, Message: &m})
			return &llm.Response{Message: m}, err
		}
		return nil, err
	}
	a.mu.Lock()
	a.usage.Add(resp.Usage)
	a.last = resp.Usage
	a.mu.Unlock()
	a.emit(event.Event{Kind: event.Usage, Usage: &resp.Usage, Model: resp.Model})
	if len(resp.Message.Content) == 0 {
		// Some APIs refuse an empty assistant turn in the history.
		resp.Message.Content = []llm.Block{{Type: llm.BlockText, Text: ""}}
	}
	resp.Message.Role = llm.Assistant
	a.append(resp.Message)
	a.emit(event.Event{Kind: event.Assistant, Message: &resp.Message, Model: resp.Model})
	return resp, nil
}

func (a *Agent) compact(ctx context.Context) error {
	if a.cfg.Compactor == nil {
		return nil
	}
	a.mu.Lock()
	last := a.last
	a.mu.Unlock()
	msgs, err := a.cfg.Compactor.Compact(ctx, a, a.Messages(), last)
	if err != nil {
		return err
	}
	if msgs != nil {
		a.Replace(msgs)
	}
	return nil
}

// beforeStop asks the hooks whether the run may end; a message to go on
// with keeps it going.
func (a *Agent) beforeStop(ctx context.Context, active *bool, last string) string {
	if a.cfg.Hooks == nil || ctx.Err() != nil {
		return ""
	}
	again := a.cfg.Hooks.BeforeStop(ctx, a.who(), *active, last)
	if again != "" {
		*active = true
	}
	return again
}

// StopWith ends the run after the current turn's tools with text as its
// answer (a plan waiting for approval).
func (a *Agent) StopWith(text string) {
	a.mu.Lock()
	a.stopWith = &text
	a.mu.Unlock()
}

// ErrInterrupted is how an interrupted run ends; it is a context.Canceled.
var ErrInterrupted error = interruptedError{}

type interruptedError struct{}

func (interruptedError) Error() string { return "interrupted by the user" }
func (interruptedError) Unwrap() error { return context.Canceled }

func interrupted(out Outcome) Outcome {
	out.End, out.Class, out.Err = EndInterrupted, "interrupted", ErrInterrupted
	return out
}

func failed(out Outcome, err error) Outcome {
	out.End, out.Err, out.Class = EndError, err, llm.ClassOf(err)
	return out
}
