package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/loop"
	"github.com/csa-dev/csa/internal/csaagent/perm"
	"github.com/csa-dev/csa/internal/csaagent/render"
	"github.com/csa-dev/csa/internal/csaagent/skills"
)

// headless answers one prompt and exits: 0 when the run succeeded, 1 when
// it failed (the result says why, with its failure class).
func (s *session) headless(ctx context.Context, prompt string) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	send, allow := prompt, []perm.Rule(nil)
	if name, args, ok := skills.Invocation(prompt); ok {
		var code int
		var done bool
		if send, allow, code, done = s.slash(ctx, name, args, false); done {
			return code
		}
	}
	out := s.turn(ctx, prompt, send, allow)
	if s.o.outputFormat == "json" && s.result != nil {
		b, _ := json.Marshal(render.Result(*s.result, s.id))
		fmt.Fprintln(s.io.Stdout, string(b))
	}
	if out.End == loop.EndDone || out.End == loop.EndStopped {
		return exitOK
	}
	if out.End == loop.EndInterrupted {
		return 130
	}
	return exitFailed
}

// turn runs one input through the loop with its hooks around it: send is
// what the model is sent (a command's prompt for "/name"), allow the rules
// allowed for this turn only (its allowed-tools). A UserPromptSubmit hook
// may keep the prompt from the model or add context to it. The loop runs
// the Stop hooks when the model ends the turn; after any other end they
// run here, as a program driving csa-agent (csa's classifier) learns from
// them that the turn is over. The next turn starts on the session's
// model, whatever skill's model this one ran on.
func (s *session) turn(ctx context.Context, input, send string, allow []perm.Rule) loop.Outcome {
	defer s.agent.Use(s.main, s.model) // after a skill's model
	msg := llm.UserText(send)
	p := s.hooks.UserPromptSubmit(ctx, input)
	if p.Blocked != "" {
		text := "prompt blocked by a UserPromptSubmit hook: " + p.Blocked
		fmt.Fprintln(s.io.Stderr, "csa-agent:", text)
		s.sink.Emit(event.Event{Kind: event.Result, Text: text, IsError: true, Mode: "blocked", SessionID: s.id})
		s.hooks.StopAfter(ctx, "")
		return loop.Outcome{End: loop.EndError, Text: text, Class: "blocked"}
	}
	msg.Content = append(msg.Content, s.mentionedFiles(ctx, send)...)
	for _, extra := range []string{s.context, p.Context} {
		if extra != "" {
			msg.Content = append(msg.Content, llm.Block{Type: llm.BlockText, Text: extra})
		}
	}
	s.context = ""
	s.policy.Grant(allow)
	defer s.policy.Revoke()
	out := s.agent.Run(ctx, msg)
	if out.End != loop.EndDone {
		s.hooks.StopAfter(ctx, out.Text)
	}
	return out
}

// wake runs a turn on an asyncRewake hook's notice: no prompt of the
// user's, so no UserPromptSubmit hooks, as in Claude Code.
func (s *session) wake(ctx context.Context, notice string) {
	if out := s.agent.Run(ctx, llm.UserText(notice)); out.End != loop.EndDone {
		s.hooks.StopAfter(ctx, out.Text)
	}
}

// repl reads a line at a time. Ctrl-C interrupts the turn in progress and
// keeps the conversation; at the prompt it exits, as does end of input.
// It closes the session it ends with (/clear starts new ones).
func (s *session) repl(ctx context.Context, first string) int {
	defer func() { s.close() }()
	lines := readLines(s.io.Stdin)
	next := first
	prompted := false
	for {
		if next == "" {
			if !prompted {
				s.showStatus(ctx)
				fmt.Fprint(s.io.Stderr, "> ")
				prompted = true
			}
			select {
			case l, ok := <-lines:
				if !ok {
					fmt.Fprintln(s.io.Stderr)
					s.endReason = "prompt_input_exit"
					return exitOK
				}
				next = strings.TrimSpace(l)
			case <-s.hooks.Woken():
				// An asyncRewake hook woke the model: its notice is
				// the next turn's message, as in Claude Code.
				for _, notice := range s.hooks.Wakes() {
					tctx, cancel := turnContext(ctx)
					s.wake(tctx, notice)
					cancel()
				}
				prompted = false
				continue
			}
		}
		prompted = false
		line := next
		next = ""
		switch {
		case line == "":
			continue
		case line == "/exit" || line == "/quit":
			s.endReason = "prompt_input_exit"
			return exitOK
		case line == "/clear":
			if fresh, err := s.clear(ctx); err != nil {
				fmt.Fprintln(s.io.Stderr, "csa-agent: /clear:", err)
			} else {
				s = fresh
			}
			continue
		}
		if ctx.Err() != nil {
			return 130
		}
		tctx, cancel := turnContext(ctx)
		send, allow := line, []perm.Rule(nil)
		done := false
		if name, args, ok := skills.Invocation(line); ok {
			send, allow, _, done = s.slash(tctx, name, args, true)
		}
		if !done {
			s.turn(tctx, line, send, allow)
		}
		cancel()
	}
}

// clear starts a new, empty conversation with a new session id, in place
// of s, which it closes.
func (s *session) clear(ctx context.Context) (*session, error) {
	o := *s.o
	o.resume, o.sessionID, o.prompt, o.cleared = "", "", "", true
	fresh, err := open(ctx, &o, s.io)
	if err != nil {
		return nil, err
	}
	s.endReason = "clear"
	s.close()
	fmt.Fprintln(s.io.Stderr, "new conversation", fresh.id)
	return fresh, nil
}

// compactNow summarises the conversation on request (/compact); false
// when it failed.
func (s *session) compactNow(ctx context.Context, instructions string) bool {
	if err := s.compactor.Now(ctx, s.agent, instructions); err != nil {
		fmt.Fprintln(s.io.Stderr, "compaction failed, the conversation is unchanged:", err)
		return false
	}
	fmt.Fprintln(s.io.Stderr, "compacted")
	return true
}

// readLines sends stdin's lines as they come, and closes at its end: the
// REPL waits for them and for its hooks at once.
func readLines(r io.Reader) <-chan string {
	out := make(chan string)
	go func() {
		defer close(out)
		in := bufio.NewScanner(r)
		in.Buffer(make([]byte, 64<<10), 16<<20)
		for in.Scan() {
			out <- in.Text()
		}
	}()
	return out
}
